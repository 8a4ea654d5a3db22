use super::*;

#[test]
fn state_size_is_as_documented() {
    #[cfg(target_pointer_width = "64")]
    assert_eq!(core::mem::size_of::<InflateDecoder>(), 42648);
    assert!(core::mem::size_of::<InflateDecoder>() <= 48 * 1024);
}
