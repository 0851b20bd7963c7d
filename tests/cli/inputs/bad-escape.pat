fine
bad \q escape
