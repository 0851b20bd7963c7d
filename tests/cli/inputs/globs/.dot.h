key dot
