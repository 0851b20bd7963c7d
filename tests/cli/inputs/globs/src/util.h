no match
