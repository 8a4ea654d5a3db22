//! NRes (stub)
/// NRes errors.
#[derive(Debug)]
pub enum NresError {}
/// Archive.
#[derive(Debug)]
pub struct Archive;
impl Archive {
    /// x
    pub fn open(_: &[u8]) -> Result<Self, NresError> {
        Ok(Archive)
    }
    /// x
    pub fn len(&self) -> usize {
        0
    }
    /// x
    pub fn find(&self, _: &[u8]) -> Option<usize> {
        None
    }
}
