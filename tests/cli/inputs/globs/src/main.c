key in c
