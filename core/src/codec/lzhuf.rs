//! LZHUF (method 0x80), in progress.
