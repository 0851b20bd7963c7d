key hidden
