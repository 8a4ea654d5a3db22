//! Regenerates the fuzz targets' seed corpus, `fuzz/seeds/<target>/`:
//! `cargo run -p ngi-tests --bin make-fuzz-seeds`. Files the generator does not make
//! (seeds added by hand) are left alone.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    let seeds = ngi_tests::fuzzing::seeds::seeds();
    for seed in &seeds {
        let dir = root.join(seed.target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(&seed.name), &seed.data)?;
    }
    println!("wrote {} seeds under {}", seeds.len(), root.display());
    Ok(())
}
