key in build
