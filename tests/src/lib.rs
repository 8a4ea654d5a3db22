//! Shared helpers of the ngi test suite.
