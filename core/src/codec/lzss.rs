//! LZSS (method 0x40), in progress.
