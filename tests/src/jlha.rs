//! jlha (Debian's `jlha-utils` / `libjlha-java`), driven through its Java API as an
//! independent LZHUF encoder: `tests/java/JlhaLh1.java` compresses files to raw `-lh1-`
//! streams, which are LZHUF streams. (Its `-lh1-` decoder is not exact, so it is never used
//! as a decoder reference.)

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian installs the library.
pub const JAR: &str = "/usr/share/java/jlha.jar";

fn tool(name: &str) -> &str {
    match Command::new(name).arg("-version").output() {
        Ok(_) => name,
        Err(e) => panic!(
            "`{name}` is needed to run the jlha LZHUF encoder ({e}): install the Debian \
             package `default-jdk-headless` (scripts/test.sh does)"
        ),
    }
}

/// Compiles the driver into `work` (once per build of the tests) and returns the class
/// path to run it with. Fails the test, saying what to install, when a tool is missing.
fn driver(work: &Path) -> String {
    assert!(
        Path::new(JAR).exists(),
        "{JAR} is needed (the jlha LZHUF encoder): install the Debian package `jlha-utils` \
         (scripts/test.sh does)"
    );
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("java/JlhaLh1.java");
    let classes = work.join("jlha-classes");
    let class = classes.join("JlhaLh1.class");
    let fresh = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if fresh(&class).is_none() || fresh(&class) < fresh(&source) {
        std::fs::create_dir_all(&classes).expect("classes folder");
        let out = Command::new(tool("javac"))
            .args(["-nowarn", "-encoding", "UTF-8", "-cp", JAR, "-d"])
            .arg(&classes)
            .arg(&source)
            .output()
            .expect("run javac");
        assert!(
            out.status.success(),
            "javac failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    format!("{JAR}:{}", classes.display())
}

/// The raw `-lh1-` streams jlha writes for each input, in one run of the JVM.
pub fn encode_lh1(work: &Path, inputs: &[(&str, &[u8])]) -> Vec<Vec<u8>> {
    let class_path = driver(work);
    let dir = work.join("jlha-streams");
    std::fs::create_dir_all(&dir).expect("streams folder");
    let mut args: Vec<PathBuf> = Vec::new();
    for (name, data) in inputs {
        let input = dir.join(format!("{name}.in"));
        std::fs::write(&input, data).expect("write input");
        args.push(input);
        args.push(dir.join(format!("{name}.lh1")));
    }
    let out = Command::new(tool("java"))
        .args(["-cp", &class_path, "JlhaLh1"])
        .args(&args)
        .output()
        .expect("run java");
    assert!(
        out.status.success(),
        "the jlha driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    args.chunks(2)
        .map(|pair| {
            let stream = std::fs::read(&pair[1]).expect("jlha's stream");
            let _ = std::fs::remove_file(&pair[0]);
            let _ = std::fs::remove_file(&pair[1]);
            stream
        })
        .collect()
}
