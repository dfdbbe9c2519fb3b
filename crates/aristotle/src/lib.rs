//! Aristotle: the memory access patterns (MAPs) of a work-group, microbenchmarks generated for
//! each, campaigns that measure them on real devices into the performance database, and the
//! composing rules that turn those measurements into advice on `__local` memory.
