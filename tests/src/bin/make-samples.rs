//! Regenerates `samples/` from the writers: `cargo run -p ngi-tests --bin make-samples`.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join(ngi_tests::samples::NRES_FILE),
        ngi_tests::samples::nres(),
    )?;
    std::fs::write(
        dir.join(ngi_tests::samples::RSLI_FILE),
        ngi_tests::samples::rsli(),
    )?;
    println!("wrote {}", dir.display());
    Ok(())
}
