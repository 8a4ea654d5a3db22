//! Shared pieces of the ngi test suite: the builders of the sample archives the repository
//! ships (`samples/`), so that a test can prove the checked-in bytes are what the writers
//! produce today, and `make-samples` can regenerate them; the conformance corpus; the
//! harness that drives any codec through the chunking matrix; and the hostile-input
//! catalogue (`hostile`), shared by the library's and the command's hostile tests; a writer
//! of hand-made Deflate streams (`deflate_bits`) and the inflaters' verdicts they are
//! judged by (`verdict`); and the scratch folders of the tests that work on files
//! (`scratch`).

pub mod alloc_count;
pub mod catalog_check;
pub mod chunked;
pub mod corpus;
pub mod deflate_bits;
pub mod fuzzing;
pub mod hostile;
pub mod jlha;
pub mod lha;
pub mod peak;
pub mod pylzss;
pub mod samples;
pub mod scratch;
pub mod streams;
pub mod tokio_io;
pub mod verdict;
