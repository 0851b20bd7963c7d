key in h
