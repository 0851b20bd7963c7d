needle

