//! The `editor` fuzz target: any archive the engine opens, edited by a script the input
//! draws (add, replace, remove, rename, sort, move, set fields, canonicalize; payloads
//! held or given as ranges of the save's source), then saved.
//!
//! Input: `[flags, ops, 4 * ops bytes of script, archive]`; flags bit 0 honours the RsLi
//! media trailer. The contracts: an untouched save is the input byte for byte; no edit
//! panics; a save that succeeds gives an archive that opens, holds the entries the script
//! leaves in the order it leaves them, and every entry that could be read before (or was
//! written by the script) reads back as the same bytes; an entry the editor leaves where
//! it is (outside the payloads) reads as before or fails as before; `write_plan` and
//! `Plan::to_vec` agree; an RsLi save is never refused for a re-keyed payload that shares
//! bytes.

use ngi_core::edit::{Plan, write_plan};
use ngi_core::nres::{self, Archive, Fields, NewEntry, SortMode};
use ngi_core::rsli::{self, Library};
use ngi_core::{Limits, Method, OpenOptions};

/// Script steps at most.
const MAX_OPS: usize = 12;

/// One entry of the model: its name and the bytes it must read back as, when known.
#[derive(Debug, Clone)]
struct Model {
    name: Vec<u8>,
    data: Option<Vec<u8>>,
    fields: Fields,
    /// Left where it is by the editor (its bytes are no payload's): it must then read as
    /// `data`, or fail to read when that is `None`, as it did before.
    outside: bool,
}

/// The body of the `editor` fuzz target.
pub fn editor(data: &[u8]) {
    let [flags, ops, rest @ ..] = data else {
        return;
    };
    let ops = usize::from(*ops).min(MAX_OPS);
    let Some((script, archive)) = rest.split_at_checked(4 * ops) else {
        return;
    };
    let steps: Vec<[u8; 4]> = script
        .chunks_exact(4)
        .filter_map(|c| c.try_into().ok())
        .collect();
    if archive.starts_with(b"NRes") {
        edit_nres(archive, &steps);
    } else {
        let options = OpenOptions::DEFAULT.with_media_trailer(flags & 1 != 0);
        edit_rsli(archive, &steps, options);
    }
}

fn data_of(len: u8, salt: u8) -> Vec<u8> {
    (0..usize::from(len) * 3)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt))
        .collect()
}

/// The saved bytes, both ways, which must agree.
fn render(plan: &Plan<'_>, source: &[u8]) -> Vec<u8> {
    let bytes = plan
        .to_vec(source)
        .expect("an archive's plan fits in memory");
    let mut written = Vec::new();
    let n = write_plan(plan, &source.to_vec(), &mut written).expect("the source holds every copy");
    assert_eq!(n as usize, written.len());
    assert!(written == bytes, "write_plan and to_vec differ");
    bytes
}

fn edit_nres(archive: &[u8], steps: &[[u8; 4]]) {
    let Ok(view) = Archive::open(archive) else {
        return;
    };
    let mut editor = nres::Editor::open(&view).expect("an archive that opens can be edited");
    let plan = editor.plan().expect("an untouched save fits");
    assert!(render(&plan, archive) == archive, "untouched save differs");
    drop(plan);
    let mut model: Vec<Model> = view
        .entries()
        .map(|e| Model {
            name: e.name().to_vec(),
            // What the editor moves (a payload inside the data region), or what it leaves
            // where it is and must read as before (nothing: no reader takes a payload
            // outside the data region, SPEC 1.3).
            data: view.payload(e.index as usize).ok().map(<[u8]>::to_vec),
            fields: Fields {
                type_id: e.type_id,
                attr1: e.attr1,
                attr2: e.attr2,
                attr3: e.attr3,
            },
            outside: editor.source_range(e.index as usize).is_none(),
        })
        .collect();
    // Payloads given as ranges of the save's source: their bytes go after the archive's.
    let mut tail: Vec<u8> = Vec::new();
    for &[kind, a, b, c] in steps {
        let len = model.len();
        let pick = |x: u8| usize::from(x) % len.max(1);
        let at = (archive.len() + tail.len()) as u64;
        match kind % 8 {
            0 => {
                let name = format!("F{a}.{b}").into_bytes();
                let bytes = data_of(c, a);
                let fields = Fields {
                    type_id: u32::from(b % 3),
                    attr1: u32::from(c % 2),
                    ..Fields::default()
                };
                let entry = NewEntry {
                    name: &name,
                    type_id: fields.type_id,
                    attr1: fields.attr1,
                    attr2: 0,
                    attr3: 0,
                };
                let added = if c & 0x80 != 0 {
                    let added = editor.add_from_source(entry, at, bytes.len() as u64);
                    tail.extend_from_slice(&bytes);
                    added
                } else {
                    editor.add(entry, bytes.clone())
                };
                if added.is_ok() {
                    model.push(Model {
                        name,
                        data: Some(bytes),
                        fields,
                        outside: false,
                    });
                }
            }
            1 if len > 0 => {
                let bytes = data_of(b, c);
                let replaced = if kind & 0x80 != 0 {
                    let replaced = editor.replace_from_source(pick(a), at, bytes.len() as u64);
                    tail.extend_from_slice(&bytes);
                    replaced
                } else {
                    editor.replace(pick(a), bytes.clone())
                };
                if replaced.is_ok() {
                    model[pick(a)].data = Some(bytes);
                    model[pick(a)].outside = false;
                }
            }
            2 if len > 0 => {
                editor.remove(pick(a)).expect("an index in range");
                model.remove(pick(a));
            }
            3 if len > 0 => {
                let name = format!("r{b}").into_bytes();
                editor.rename(pick(a), &name).expect("a valid name");
                model[pick(a)].name = name;
            }
            4 => {
                let mode = SortMode::from_number(u32::from(b % 12)).expect("0..12");
                editor.sort(mode);
                model.sort_by(|x, y| {
                    let (fx, fy) = (field(&x.name), field(&y.name));
                    mode.compare(&as_entry(&fx, x.fields), &as_entry(&fy, y.fields))
                });
            }
            5 if len > 0 && c & 0x80 != 0 => {
                let order = order_of(len, a, b);
                editor.reorder(&order).expect("a permutation");
                model = reordered(model, &order);
            }
            5 if len > 0 => {
                editor
                    .move_entry(pick(a), pick(b))
                    .expect("indices in range");
                let m = model.remove(pick(a));
                model.insert(pick(b), m);
            }
            6 if len > 0 => {
                let fields = Fields {
                    type_id: u32::from(b),
                    attr1: u32::from(c),
                    attr2: u32::from(a),
                    attr3: 7,
                };
                editor
                    .set_fields(pick(a), fields)
                    .expect("an index in range");
                model[pick(a)].fields = fields;
            }
            7 => {
                let _ = editor.canonicalize();
            }
            _ => {}
        }
    }
    let Ok(plan) = editor.plan() else {
        return;
    };
    let saved = render(&plan, &[archive, &tail].concat());
    check_nres(&saved, &model);
}

/// The saved NRes archive holds the entries of `model`, each with its name, fields and
/// bytes (or read as before, for one left outside the payloads).
fn check_nres(saved: &[u8], model: &[Model]) {
    let reopened = Archive::open(saved).expect("a saved archive opens");
    assert_eq!(reopened.len(), model.len());
    for (i, m) in model.iter().enumerate() {
        let e = reopened.entry(i).expect("in range");
        assert!(e.name() == m.name.as_slice(), "entry {i}: name");
        assert_eq!(
            (e.type_id, e.attr1, e.attr2, e.attr3),
            (
                m.fields.type_id,
                m.fields.attr1,
                m.fields.attr2,
                m.fields.attr3
            )
        );
        if m.outside {
            let got = reopened.payload(i).ok();
            assert!(
                got == m.data.as_deref(),
                "entry {i}: left outside, read as before"
            );
        } else if let Some(want) = &m.data {
            let got = reopened
                .payload(i)
                .expect("a payload read before reads after");
            assert!(got == want.as_slice(), "entry {i}: payload");
        }
    }
}

/// A permutation of `0..len` from two input bytes: a rotation by `a`, reversed when `b` is
/// odd, and with the first and `b`-th places swapped.
fn order_of(len: usize, a: u8, b: u8) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).map(|k| (k + usize::from(a)) % len).collect();
    if b % 2 == 1 {
        order.reverse();
    }
    order.swap(0, usize::from(b) % len);
    order
}

/// `model` in the order `order` gives, as `reorder` is documented to put it.
fn reordered<T: Clone>(model: Vec<T>, order: &[usize]) -> Vec<T> {
    order.iter().map(|&i| model[i].clone()).collect()
}

fn field(name: &[u8]) -> [u8; nres::NAME_FIELD_LEN] {
    let mut field = [0u8; nres::NAME_FIELD_LEN];
    for (d, s) in field.iter_mut().zip(name) {
        *d = *s;
    }
    field
}

fn as_entry(field: &[u8; nres::NAME_FIELD_LEN], f: Fields) -> nres::Entry<'_> {
    nres::Entry {
        index: 0,
        type_id: f.type_id,
        attr1: f.attr1,
        attr2: f.attr2,
        size: 0,
        attr3: f.attr3,
        name_field: field,
        data_offset: 0,
        sort_index: 0,
    }
}

/// The options to read a saved library with: those it was opened with, but without
/// trailers where the source had none (`overlay`) and the saved bytes end as if they had
/// one (`AO` and four bytes, of a payload added last and what lies before it). A reader
/// that honours trailers takes them for one, as `rsli::Editor::plan` documents; the
/// library is read as it was written.
fn reading_options(overlay: Option<u32>, saved: &[u8], options: OpenOptions) -> OpenOptions {
    match (overlay, rsli::parse_trailer(saved)) {
        (None, Some(_)) => options.with_media_trailer(false),
        _ => options,
    }
}

fn edit_rsli(archive: &[u8], steps: &[[u8; 4]], options: OpenOptions) {
    let Ok(library) = Library::open_with(archive, options) else {
        return;
    };
    let mut editor = rsli::Editor::open(&library).expect("a library that opens can be edited");
    let plan = editor.plan().expect("an untouched save fits");
    assert!(render(&plan, archive) == archive, "untouched save differs");
    drop(plan);
    let limits = Limits::DEFAULT.with_max_entry_size(super::MAX_ENTRY as u64);
    let mut model: Vec<Model> = (0..library.len())
        .map(|i| {
            let range = editor.source_range(i);
            // What the editor moves: packed bytes in the payload region. One cut at the
            // region's end may have needed the bytes after it: only a Deflate stream one
            // byte past the end of the file (SPEC 2.7) is known to decode without them.
            // What it leaves where it is (in the header or table, or past the payloads)
            // must read, or fail, as before.
            let known = range.as_ref().is_none_or(|r| {
                library.entry(i).is_some_and(|e| {
                    let cut = rsli::span_len(e) - (r.end - r.start);
                    cut == 0
                        || cut == 1
                            && e.method() == Ok(Method::Deflate)
                            && editor.trailer().is_none()
                })
            });
            Model {
                name: library
                    .entry(i)
                    .map(|e| e.name().to_vec())
                    .unwrap_or_default(),
                data: known
                    .then(|| library.unpack_to_vec(i, &limits).ok())
                    .flatten(),
                fields: Fields::default(),
                outside: range.is_none(),
            }
        })
        .collect();
    // Data given as ranges of the save's source: their bytes go after the library's.
    let mut tail: Vec<u8> = Vec::new();
    for &[kind, a, b, c] in steps {
        let len = model.len();
        let pick = |x: u8| usize::from(x) % len.max(1);
        let method = Method::ALL[usize::from(c) % Method::ALL.len()];
        let at = (archive.len() + tail.len()) as u64;
        // Only stored and XOR data can be copied as it is; the others are refused.
        let copies = matches!(method, Method::Stored | Method::Xor);
        let refused = |e: rsli::BuildError| {
            assert!(
                copies || matches!(e, rsli::BuildError::MethodPacks { .. }),
                "{method:?} from the source: {e}"
            );
        };
        match kind % 6 {
            0 => {
                let name = format!("F{a}.{b}").into_bytes();
                let bytes = data_of(b, a);
                let added = if kind & 0x80 != 0 {
                    let added = editor.add_from_source(&name, method, at, bytes.len() as u64);
                    tail.extend_from_slice(&bytes);
                    added.inspect_err(|&e| refused(e))
                } else {
                    editor.add(&name, method, &bytes)
                };
                if added.is_ok() {
                    model.push(Model {
                        name,
                        data: Some(bytes),
                        fields: Fields::default(),
                        outside: false,
                    });
                }
            }
            1 if len > 0 => {
                let bytes = data_of(b, c);
                let replaced = if kind & 0x80 != 0 {
                    let replaced =
                        editor.replace_from_source(pick(a), method, at, bytes.len() as u64);
                    tail.extend_from_slice(&bytes);
                    replaced.inspect_err(|&e| refused(e))
                } else {
                    editor.replace_with(pick(a), method, &bytes)
                };
                if replaced.is_ok() {
                    model[pick(a)].data = Some(bytes);
                    model[pick(a)].outside = false;
                }
            }
            2 if len > 0 => {
                editor.remove(pick(a)).expect("an index in range");
                model.remove(pick(a));
            }
            3 if len > 0 => {
                let name = format!("R{b}").into_bytes();
                editor.rename(pick(a), &name).expect("a valid name");
                model[pick(a)].name = name;
            }
            4 if len > 0 && c & 0x80 != 0 => {
                let order = order_of(len, a, b);
                editor.reorder(&order).expect("a permutation");
                model = reordered(model, &order);
            }
            4 if len > 0 => {
                editor
                    .move_entry(pick(a), pick(b))
                    .expect("indices in range");
                let m = model.remove(pick(a));
                model.insert(pick(b), m);
            }
            // The header's seed and flag: every entry decodes as before all the same.
            5 if c & 0x80 != 0 && a & 1 == 0 => {
                editor.set_seed(u32::from_le_bytes([a, b, c, kind]));
            }
            5 if c & 0x80 != 0 => {
                editor.set_presorted(b & 1 != 0);
            }
            5 => {
                let _ = editor.canonicalize();
            }
            _ => {}
        }
    }
    let plan = match editor.plan() {
        Ok(plan) => plan,
        // A payload whose key moves while it shares bytes is given a copy of its own.
        Err(e @ rsli::BuildError::SharedKeyedPayload { .. }) => panic!("{e}"),
        Err(_) => return,
    };
    let saved = render(&plan, &[archive, &tail].concat());
    let options = reading_options(library.overlay(), &saved, options);
    let reopened = Library::open_with(&saved, options).expect("a saved library opens");
    assert_eq!(reopened.len(), model.len());
    for (i, m) in model.iter().enumerate() {
        let e = reopened.entry(i).expect("in range");
        assert!(e.name() == m.name.as_slice(), "entry {i}: name");
        let got = reopened.unpack_to_vec(i, &limits);
        if m.outside {
            assert!(
                got.as_ref().ok() == m.data.as_ref(),
                "entry {i}: left outside, decodes as before: {got:?}"
            );
        } else if let Some(want) = &m.data {
            assert!(
                got.as_deref() == Ok(want.as_slice()),
                "entry {i}: decodes as before: {got:?}"
            );
        }
    }
}
