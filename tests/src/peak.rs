//! Peak resident memory of a command: the children's `ru_maxrss` as Python's `resource`
//! module (getrusage) reports it for the command it runs.

use std::process::Command;

/// Runs `program args` under Python, which reports the child's peak RSS (KiB) on stderr's last
/// line; returns stdout and the peak.
pub fn run_measured(program: &str, args: &[&str]) -> (Vec<u8>, u64) {
    let script = "import resource, subprocess, sys\n\
                  r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n\
                  sys.stdout.buffer.write(r.stdout)\n\
                  sys.stderr.write('exit %d\\n' % r.returncode)\n\
                  sys.stderr.write('%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(program)
        .args(args)
        .output()
        .expect("python3 runs (CPython is on every machine of ours)");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let mut lines = err.lines().rev();
    let peak: u64 = lines.next().and_then(|l| l.parse().ok()).expect("the peak");
    assert_eq!(lines.next(), Some("exit 0"), "{args:?}: {err}");
    (o.stdout, peak)
}
