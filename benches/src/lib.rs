//! Inputs shared by the ngi benches.
