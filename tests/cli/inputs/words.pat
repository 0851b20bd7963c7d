fox
dog
end
