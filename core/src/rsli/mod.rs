//! RsLi (stub)
/// RsLi errors.
#[derive(Debug)]
pub enum RsliError {}
