//! IR built by hand for the tests of the validator and the printer.
