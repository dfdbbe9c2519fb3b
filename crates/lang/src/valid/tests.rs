//! Tests of the validator.
