//! Importers: one module per format, a cheap `sniff`, one registry ([`importers`]).
//!
//! Flow: [`import_files`] unwraps containers (gzip, zip: [`container`]), offers each file to the
//! registry in order, and the first importer whose sniff says `Yes` (else the first `Maybe`)
//! converts it into the model through a [`TraceBuilder`]. An importer that finds, on a closer
//! look, that the file is not its own returns [`ImportError::NotMine`] quickly and **before
//! writing anything to the builder**; the file then falls through to the next candidate (the
//! other `Yes` importers in registry order, then the `Maybe` ones: [`candidates`]). When no
//! importer takes a file, [`diagnose_unknown`] says what it looks like and lists what Loupe reads.
//!
//! Multi-file formats (one Parquet file per table): `import_files` groups the files by the
//! importer that claimed them and first offers each importer its whole group through
//! [`Importer::import_group`]; an importer that does not implement it gets its files one by one.
//!
//! Several files: every group records the file it was read from ([`crate::model::Group::source_file`]);
//! only when more than one file produced groups does the group's name also say it (`nc0 — a.ntff`),
//! and a Neuron device group's its rank (`rank 1 — nc0 — a_rank_1.ntff`: [`ranks`]).
//! An NTFF dropped with its own neuron-profile JSON export loads as one profile: the NTFF's
//! timeline, with the export's per-instruction attribution (operators, FLOPs, dependencies)
//! joined onto its rows, plus the export's tables as metadata ([`neuron::json::import_own_export`],
//! [`neuron::binary::import_group_with_exports`]).

pub mod api;
pub mod chrome;
pub mod container;
pub mod dlprof_csv;
pub mod error;
pub mod neuron;
pub mod perfetto;
pub mod ranks;
pub mod rocprof;
pub mod sqlite;
pub mod xprof;

pub use api::*;
pub use error::*;

use crate::model::WarningKind;
use crate::model::{Trace, TraceBuilder};

/// The registry, in sniff order (the first `Yes` wins). Binary formats with structure checks
/// first, then DLProf CSV reports (a known title or header line), JSON dialects last (their
/// sniff is the most permissive).
pub fn importers() -> Vec<&'static dyn Importer> {
    vec![
        &sqlite::NsysRep,
        &neuron::binary::NeuronBinary,
        &neuron::parquet::NeuronParquet,
        &xprof::XProf,
        &perfetto::Perfetto,
        &dlprof_csv::DlprofCsv,
        &neuron::tb_ops::NeuronTbOps,
        &rocprof::Rocprof,
        &neuron::json::NeuronJson,
        &chrome::ChromeJson,
        &sqlite::SqliteDb,
    ]
}

/// Which importer would take this file (after container unwrapping): the first [`candidates`].
pub fn detect(file_name: &str, bytes: &[u8]) -> Option<&'static dyn Importer> {
    candidates(file_name, bytes).into_iter().next()
}

/// Every importer whose sniff accepts this file, in the order they are tried: those that say
/// `Yes` in registry order, then those that say `Maybe` in registry order.
pub fn candidates(file_name: &str, bytes: &[u8]) -> Vec<&'static dyn Importer> {
    candidates_with(&[], file_name, bytes)
}

/// [`candidates`] with `extra` importers (e.g. `loupe-sqlite`'s) sniffed before the registry.
pub fn candidates_with(
    extra: &[&'static dyn Importer],
    file_name: &str,
    bytes: &[u8],
) -> Vec<&'static dyn Importer> {
    let prefix = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let mut yes = Vec::new();
    let mut maybe = Vec::new();
    for imp in extra.iter().copied().chain(importers()) {
        match imp.sniff(file_name, prefix) {
            Sniff::Yes => yes.push(imp),
            Sniff::Maybe => maybe.push(imp),
            Sniff::No => {}
        }
    }
    yes.extend(maybe);
    yes
}

/// Import one file (gzip/zip containers are unwrapped first).
pub fn import_bytes(
    file_name: &str,
    bytes: &[u8],
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    import_files(&[InputFile { name: file_name, bytes }], progress)
}

/// One unwrapped file and the importers that may take it, in order.
struct Pending<'a> {
    file: InputFile<'a>,
    candidates: Vec<&'static dyn Importer>,
    /// A neuron-profile JSON export dropped with the NTFF it was made from: (that NTFF's name,
    /// why they match). Joined onto that NTFF ([`neuron::json::import_own_export`]).
    own_export_of: Option<(String, String)>,
}

/// Separator between a group's name and its file, when several files produced groups.
pub const GROUP_FILE_SEPARATOR: &str = " — ";

/// The files taken as a profile's when a whole folder is opened (the page's "Open folder" and a
/// dropped folder, `loupe … DIR`): Neuron captures and Neuron Explorer's Parquet tables (its output
/// directory is one profile: the importer groups the tables, `Instruction_0.parquet`, …). Other
/// files in the folder are listed as skipped, not read as a profile.
pub const FOLDER_PROFILE_EXTENSIONS: &[&str] = &["ntff", "neff", "parquet"];

/// For each file, the NTFF whose own neuron-profile JSON export it is (see
/// [`neuron::json::ExportIdentity::same_capture`] for the definition): `(ntff name, why)`. Each
/// NTFF claims at most one export. Costs nothing unless NTFFs and JSON exports are dropped
/// together; then the NTFF headers and the exports' identity tables are read once more.
fn own_exports(files: &[(&str, &[u8], &'static dyn Importer)]) -> Vec<Option<(String, String)>> {
    let mut out = vec![None; files.len()];
    let ntffs: Vec<(&str, neuron::binary::NtffIdentity)> = files
        .iter()
        .filter(|(_, _, imp)| imp.name() == neuron::binary::NeuronBinary.name())
        .filter_map(|(name, bytes, _)| Some((*name, neuron::binary::ntff_identity(bytes)?)))
        .collect();
    if ntffs.is_empty() {
        return out;
    }
    let mut claimed = vec![false; ntffs.len()];
    for (i, (_, bytes, imp)) in files.iter().enumerate() {
        if imp.name() != neuron::json::NAME {
            continue;
        }
        let Some(id) = neuron::json::export_identity(bytes) else { continue };
        for (k, (ntff_name, t)) in ntffs.iter().enumerate() {
            if claimed[k] {
                continue;
            }
            if let Ok(why) = id.same_capture(t) {
                claimed[k] = true;
                out[i] = Some((ntff_name.to_string(), why));
                break;
            }
        }
    }
    out
}

/// Record the file (or files) the groups `first..` came from, for those the importer did not
/// tag itself: one file → its name; several (a multi-file format) → their common folder, else
/// the first name and how many more.
fn tag_groups(b: &mut TraceBuilder, first: usize, names: &[&str]) {
    if first >= b.group_count() || names.is_empty() {
        return;
    }
    let label = if names.len() == 1 {
        names[0].to_string()
    } else {
        let dir = |n: &str| n.rfind(['/', '\\']).map(|i| n[..i].to_string());
        match dir(names[0]) {
            Some(d) if !d.is_empty() && names.iter().all(|n| dir(n).as_deref() == Some(d.as_str())) => d,
            _ => format!("{} (+{} files)", names[0], names.len() - 1),
        }
    };
    for g in first..b.group_count() {
        let g = crate::model::GroupId(g as u32);
        if b.group_source_file(g).is_none() {
            b.set_group_source_file(g, &label);
        }
    }
}

/// When more than one input file produced groups, add the file's name to each group's name
/// (`nc0 — profile.ntff`); one file keeps the names as they are.
fn name_groups_by_file(b: &mut TraceBuilder) {
    let ids: Vec<crate::model::GroupId> = (0..b.group_count() as u32).map(crate::model::GroupId).collect();
    let mut files: Vec<crate::strings::StrId> = ids.iter().filter_map(|&g| b.group_source_file(g)).collect();
    files.sort_unstable();
    files.dedup();
    if files.len() < 2 {
        return;
    }
    for g in ids {
        let Some(f) = b.group_source_file(g) else { continue };
        let file = b.string(f);
        let file = file.trim_end_matches(['/', '\\']);
        let file = file.rsplit(['/', '\\']).next().unwrap_or(file).to_string();
        let name = b.string(b.group_name(g)).to_string();
        let name = if name.is_empty() { file } else { format!("{name}{GROUP_FILE_SEPARATOR}{file}") };
        b.set_group_name(g, &name);
    }
}

/// When more than one input file produced groups, label each group of them with its rank, as
/// the analyses number it ([`ranks::number_files`]): `rank 2 — NeuronCore 0 — graph.neff — x.ntff`,
/// `rank 1 — python (pid 7) — trace_rank-1.json`. Neuron device groups (one NTFF per NeuronCore of
/// a job, …) always; other groups when the files say they are ranks (`distributedInfo.rank`, or
/// `rank_N` in every name), not for unrelated files numbered by their order.
fn name_groups_by_rank(b: &mut TraceBuilder) {
    let ids: Vec<crate::model::GroupId> = (0..b.group_count() as u32).map(crate::model::GroupId).collect();
    // the input files in order of first appearance, as the analyses' rank map lists them
    let mut files: Vec<Option<crate::strings::StrId>> = Vec::new();
    let mut neuron: Vec<bool> = Vec::new();
    let mut file_of: Vec<usize> = Vec::with_capacity(ids.len());
    for &g in &ids {
        let f = b.group_source_file(g);
        let k = match files.iter().position(|x| *x == f) {
            Some(k) => k,
            None => {
                files.push(f);
                neuron.push(false);
                files.len() - 1
            }
        };
        neuron[k] |= b.group_device(g).is_some();
        file_of.push(k);
    }
    if files.len() < 2 {
        return;
    }
    let (numbers, source) = {
        let names: Vec<Option<&str>> = files.iter().map(|f| f.map(|s| b.string(s))).collect();
        ranks::number_files(&b.metadata.entries, &names, &neuron)
    };
    let stated = matches!(source, ranks::RankSource::DistributedInfo | ranks::RankSource::FileName);
    for (g, k) in ids.into_iter().zip(file_of) {
        if b.group_device(g).is_none() && !stated {
            continue;
        }
        let Some(&rank) = numbers.get(k) else { continue };
        let name = format!("rank {rank}{GROUP_FILE_SEPARATOR}{}", b.string(b.group_name(g)));
        b.set_group_name(g, &name);
        // a job's device groups (one per NeuronCore) shown in rank order, whatever the input's
        // order (importers of other formats order their groups themselves: pids, devices)
        if b.group_device(g).is_some() {
            b.set_group_sort(g, rank);
        }
    }
}

/// Refuse `files` up front ([`ImportError::TooLarge`]) when importing them whole would take more
/// than `limit` bytes of memory at its peak, as far as Loupe can estimate it from their sizes
/// (NTFF captures: [`neuron::binary::estimate_peak_bytes`]; other formats are not estimated
/// here: the streamed Chrome JSON has its own check, the rest have size limits of their own).
pub fn check_peak(files: &[InputFile<'_>], limit: u64) -> Result<(), ImportError> {
    let ntff: u64 = files
        .iter()
        .filter(|f| neuron::binary::is_ntff(&f.bytes[..f.bytes.len().min(SNIFF_BYTES)]))
        .map(|f| f.bytes.len() as u64)
        .sum();
    let est = neuron::binary::estimate_peak_bytes(ntff);
    if est > limit {
        return Err(ImportError::TooLarge {
            what: format!(
                "this NTFF capture ({}) would need about {} of memory to import here ({} bytes per byte of \
                 capture; the `loupe` command line has no such limit), which is",
                crate::limits::human_bytes(ntff),
                crate::limits::human_bytes(est),
                neuron::binary::PEAK_BYTES_PER_NTFF_BYTE
            ),
            limit,
        });
    }
    Ok(())
}

/// Import several files into one trace (e.g. a NEFF and its NTFF, or several Parquet tables).
pub fn import_files(files: &[InputFile<'_>], progress: &mut dyn Progress) -> Result<Trace, ImportError> {
    import_files_with(&[], files, progress)
}

/// [`import_files`] over files it owns, freed once the importers have read them
/// ([`import_owned_with`]).
pub fn import_owned(
    files: Vec<(String, Vec<u8>)>,
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    import_owned_with(&[], files, progress)
}

/// [`import_files`] with `extra` importers that live outside loupe-core (the SQLite readers of
/// `loupe-sqlite`: see [`sqlite`]); they are offered each file before the registry.
pub fn import_files_with(
    extra: &[&'static dyn Importer],
    files: &[InputFile<'_>],
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    match read_files_with(extra, files, progress)? {
        ReadFiles::Model(t) => Ok(*t),
        ReadFiles::Built(b, formats) => finish_files(*b, formats),
    }
}

/// [`import_files_with`] over files it owns: their bytes are freed as soon as every importer has
/// read them, before the derived tracks (operator timeline, device counters) and
/// [`TraceBuilder::finish`], which then have that memory to themselves. The model is the same.
/// This is what the browser's parser worker runs on the files it read whole (a 100 MB NTFF: the
/// import's peak in `finish` was the file + the builder + `finish`'s copies).
pub fn import_owned_with(
    extra: &[&'static dyn Importer],
    files: Vec<(String, Vec<u8>)>,
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    let read = {
        let inputs: Vec<InputFile<'_>> =
            files.iter().map(|(name, bytes)| InputFile { name, bytes }).collect();
        read_files_with(extra, &inputs, progress)?
    };
    drop(files);
    match read {
        ReadFiles::Model(t) => Ok(*t),
        ReadFiles::Built(b, formats) => finish_files(*b, formats),
    }
}

/// What the importers made of the files: a finished model (a `.loupe` file) or a builder that
/// every importer has filled (no longer borrowing the files) and the formats they named.
enum ReadFiles {
    Model(Box<Trace>),
    Built(Box<TraceBuilder>, Vec<String>),
}

/// The derived tracks, the format and `finish` of a builder every importer has filled.
fn finish_files(mut b: TraceBuilder, mut formats: Vec<String>) -> Result<Trace, ImportError> {
    name_groups_by_file(&mut b);
    name_groups_by_rank(&mut b);
    b.add_operator_timeline();
    b.add_device_counters();
    formats.dedup();
    b.set_format(&formats.join("+"));
    checked_span(b.finish())
}

fn read_files_with(
    extra: &[&'static dyn Importer],
    files: &[InputFile<'_>],
    progress: &mut dyn Progress,
) -> Result<ReadFiles, ImportError> {
    let mut unwrapped: Vec<(String, std::borrow::Cow<'_, [u8]>)> = Vec::new();
    let mut budget = container::Budget::default();
    let mut notes = Vec::new();
    for f in files {
        if f.bytes.is_empty() {
            return Err(ImportError::Empty);
        }
        unwrapped.extend(container::unwrap_noting(f.name, f.bytes, &mut budget, &mut notes)?);
    }
    // a .loupe file is a finished model: it opens alone, without the builder
    if let Some(t) = open_loupe_file(&unwrapped)? {
        return Ok(ReadFiles::Model(Box::new(t)));
    }
    // group the files by the importer that claims them first (first-appearance order of
    // importers, file order within a group), so a multi-file format sees all its files at once
    let mut sniffed: Vec<(&str, &[u8], Vec<&'static dyn Importer>)> = Vec::new();
    for (name, bytes) in &unwrapped {
        crate::limits::check_json_size(bytes, crate::limits::MAX_JSON_INPUT_BYTES)?;
        let candidates = candidates_with(extra, name, bytes);
        if candidates.is_empty() {
            return Err(diagnose_unknown(name, bytes, &notes));
        }
        sniffed.push((name, bytes, candidates));
    }
    // an NTFF dropped with its own JSON export is one profile, not two
    let firsts: Vec<(&str, &[u8], &'static dyn Importer)> =
        sniffed.iter().map(|(n, b, c)| (*n, *b, c[0])).collect();
    let mut own = own_exports(&firsts).into_iter();
    let mut groups: Vec<(&'static dyn Importer, Vec<Pending<'_>>)> = Vec::new();
    for (name, bytes, candidates) in sniffed {
        let imp = candidates[0];
        let own_export_of = own.next().flatten();
        let p = Pending { file: InputFile { name, bytes }, candidates, own_export_of };
        match groups.iter_mut().find(|(i, _)| i.name() == imp.name()) {
            Some((_, ps)) => ps.push(p),
            None => groups.push((imp, vec![p])),
        }
    }
    let mut b = TraceBuilder::new("");
    // one memory budget for the whole import, sized from the files as given; what the
    // containers expanded is held throughout, so it is charged first
    let given: u64 = files.iter().map(|f| f.bytes.len() as u64).sum();
    b.set_budget(crate::limits::Budget::for_input(given));
    let expanded: u64 = unwrapped
        .iter()
        .filter(|(_, c)| matches!(c, std::borrow::Cow::Owned(_)))
        .map(|(_, c)| c.len() as u64)
        .sum();
    b.charge(crate::limits::Item::ExpandedBytes, expanded)?;
    for n in &notes {
        b.warn(n.kind, || n.message.clone());
    }
    let mut formats: Vec<String> = Vec::new();
    // own exports first: their tables as metadata, their per-instruction attribution kept for the
    // NTFF's import to join onto its rows
    let mut exports = neuron::binary::Exports::new();
    for (_, pending) in &groups {
        for p in pending {
            if let Some((ntff, why)) = &p.own_export_of {
                let x = neuron::json::import_own_export(&p.file, ntff, why, &mut b, progress)?;
                exports.insert(ntff.clone(), x);
            }
        }
    }
    for (imp, pending) in &groups {
        let pending: Vec<&Pending<'_>> = pending.iter().filter(|p| p.own_export_of.is_none()).collect();
        if pending.is_empty() {
            continue;
        }
        let files: Vec<InputFile<'_>> =
            pending.iter().map(|p| InputFile { name: p.file.name, bytes: p.file.bytes }).collect();
        let first_group = b.group_count();
        let result = if imp.name() == neuron::binary::NeuronBinary.name() && !exports.is_empty() {
            Some(neuron::binary::import_group_with_exports(&files, &mut exports, &mut b, progress))
        } else {
            imp.import_group(&files, &mut b, progress)
        };
        let grouped = match result {
            Some(Err(ImportError::NotMine(_))) => false,
            Some(r) => {
                over_budget(&b, r)?;
                push_format(&mut b, &mut formats, *imp);
                let names: Vec<&str> = files.iter().map(|f| f.name).collect();
                tag_groups(&mut b, first_group, &names);
                true
            }
            None => false,
        };
        if grouped {
            continue;
        }
        // one by one: a file its first importer refuses falls through to the next candidate
        for p in pending {
            let mut refused = None;
            let first_group = b.group_count();
            for imp in &p.candidates {
                let r = imp.import(&p.file, &mut b, progress);
                match over_budget(&b, r) {
                    Ok(()) => {
                        push_format(&mut b, &mut formats, *imp);
                        refused = None;
                        break;
                    }
                    Err(ImportError::NotMine(n)) => refused = Some(n),
                    Err(e) => return Err(e),
                }
            }
            if refused.is_some() {
                return Err(diagnose_unknown(p.file.name, p.file.bytes, &notes));
            }
            tag_groups(&mut b, first_group, &[p.file.name]);
        }
    }
    Ok(ReadFiles::Built(Box::new(b), formats))
}

/// An importer's result, unless the builder went over the import's memory budget meanwhile
/// (the builder then dropped what it was given: the import fails, naming what was too large).
fn over_budget(b: &TraceBuilder, r: Result<(), ImportError>) -> Result<(), ImportError> {
    match (r, b.budget_error()) {
        (Err(ImportError::NotMine(_)), Some(e)) | (Ok(()), Some(e)) => Err(e),
        (r, _) => r,
    }
}

/// A model whose time span fits i64 nanoseconds (≈ 292 years), else a clear error. Every
/// analysis, the timeline and the CLI measure spans as `end − start` in i64: a file whose clock
/// values sit at both ends of the i64 range (a damaged or hostile file; no profiler records
/// centuries) is refused here, once, instead of each of them overflowing.
pub fn checked_span(t: Trace) -> Result<Trace, ImportError> {
    let slices = t.tracks.iter().flat_map(|tr| (0..tr.slices.len()).map(move |i| (tr, i)));
    // the model's own bounds, and every slice's end (start + duration may pass the bounds)
    let mut lo = t.start_ns as i128;
    let mut hi = t.end_ns as i128;
    for (tr, i) in slices {
        let s = tr.slices.start_ns[i] as i128;
        lo = lo.min(s);
        hi = hi.max(s + tr.slices.dur_ns.at(i) as i128);
    }
    if hi - lo > i64::MAX as i128 {
        return Err(ImportError::Invalid {
            format: "timestamps",
            message: format!(
                "the events span from {lo} ns to {hi} ns, more than 292 years: the file's clock values \
                 are damaged (Loupe measures every span in 64-bit nanoseconds and cannot show this one)"
            ),
        });
    }
    Ok(t)
}

/// Whether a file can be imported with [`import_chrome_stream`]: not a gzip/zip container, and
/// Chrome JSON is the first importer that would take it (`prefix` = its first [`SNIFF_BYTES`]).
pub fn streamable(file_name: &str, prefix: &[u8]) -> bool {
    let container = prefix.starts_with(&[0x1f, 0x8b]) || prefix.starts_with(b"PK\x03\x04");
    !container && candidates(file_name, prefix).first().is_some_and(|i| i.name() == chrome::ChromeJson.name())
}

/// Import one Chrome JSON file read chunk by chunk from `reader` (`total` bytes): the same
/// trace as [`import_files`] on the whole file, without the file ever being resident as a whole
/// (and without [`crate::limits::MAX_JSON_INPUT_BYTES`], which exists for whole buffers). See
/// [`chrome::import_stream`] for lazy arguments.
pub fn import_chrome_stream(
    file_name: &str,
    total: u64,
    reader: &mut dyn std::io::Read,
    opts: chrome::StreamOptions,
    progress: &mut dyn Progress,
) -> Result<Trace, ImportError> {
    if total == 0 {
        return Err(ImportError::Empty);
    }
    let mut b = chrome_stream_builder(total);
    let r = chrome::import_stream(reader, total, &mut b, opts, progress);
    over_budget(&b, r)?;
    finish_chrome_stream(file_name, b)
}

/// The builder a Chrome JSON file of `total` bytes is streamed into ([`chrome::import_stream`],
/// or pieces pushed into a [`chrome::StreamImport`] by the browser's worker): under the budget of
/// every import of that input ([`crate::limits::Budget::for_input`]).
pub fn chrome_stream_builder(total: u64) -> TraceBuilder {
    let mut b = TraceBuilder::new("");
    b.set_budget(crate::limits::Budget::for_input(total));
    b
}

/// The trace of a Chrome JSON file streamed into `b` ([`chrome::import_stream`], or the pieces
/// pushed into a [`chrome::StreamImport`] and [`chrome::set_format`]): the same steps after the
/// parse as [`import_files`] takes for that one file.
pub fn finish_chrome_stream(file_name: &str, mut b: TraceBuilder) -> Result<Trace, ImportError> {
    // a builder over its budget ([`crate::limits::Budget`], if its owner set one) dropped events
    if let Some(e) = b.budget_error() {
        return Err(e);
    }
    let mut formats = Vec::new();
    push_format(&mut b, &mut formats, &chrome::ChromeJson);
    tag_groups(&mut b, 0, &[file_name]);
    name_groups_by_file(&mut b);
    b.add_operator_timeline();
    b.set_format(&formats.join("+"));
    checked_span(b.finish())
}

/// The model of a `.loupe` file ([`crate::loupe_file`]), recognised by its magic; `None` when no
/// input is one. Its state (annotations, view) is for the app, which reads it with
/// [`crate::loupe_file::read`].
fn open_loupe_file(files: &[(String, std::borrow::Cow<'_, [u8]>)]) -> Result<Option<Trace>, ImportError> {
    use crate::loupe_file::{is_loupe, read, LoupeFileError};
    if !files.iter().any(|(_, b)| is_loupe(b)) {
        return Ok(None);
    }
    const F: &str = "Loupe file";
    let [(_, bytes)] = files else {
        return Err(ImportError::Unsupported {
            format: F,
            message: "a .loupe file holds a whole profile: open it alone, not with other files".into(),
        });
    };
    match read(bytes) {
        Ok(f) => Ok(Some(f.trace)),
        Err(LoupeFileError::TooLarge { payload, limit }) => {
            Err(ImportError::TooLarge { what: format!("its model ({payload} bytes) is"), limit })
        }
        Err(e @ LoupeFileError::Version { .. }) => {
            Err(ImportError::Unsupported { format: F, message: e.to_string() })
        }
        Err(e) => Err(ImportError::Invalid { format: F, message: e.to_string() }),
    }
}

/// Record the format an importer produced: it may name the dialect it found (e.g. "ntff+neff",
/// "pytorch-kineto"), else its own name.
fn push_format(b: &mut TraceBuilder, formats: &mut Vec<String>, imp: &dyn Importer) {
    let name = if b.format().is_empty() { imp.name().to_string() } else { b.format().to_string() };
    b.set_format("");
    formats.push(name);
}

/// The error for a file no importer takes: specific when the bytes say what went wrong (UTF-16
/// text, an NTFF of another version, a NEFF with one bad header field, a truncated gzip, only
/// zero bytes), else [`ImportError::UnknownFormat`] with a safe description of the file.
pub fn diagnose_unknown(name: &str, bytes: &[u8], notes: &[container::Note]) -> ImportError {
    let shown = container::printable(name);
    if let Some(e) = utf16_text(bytes) {
        let lower = name.to_ascii_lowercase();
        let kind = if lower.ends_with(".csv") || lower.ends_with(".csv.gz") {
            "CSV"
        } else if lower.contains(".json") {
            "JSON"
        } else {
            "text files (JSON, CSV)"
        };
        return ImportError::Unsupported {
            format: "text",
            message: format!(
                "'{shown}' is UTF-16 text ({e}); Loupe reads {kind} in UTF-8: convert it first \
                 (e.g. `iconv -f UTF-16 -t UTF-8`)"
            ),
        };
    }
    if let Some(version) = ntff_other_version(bytes) {
        return ImportError::Unsupported {
            format: "NTFF",
            message: neuron::binary::ntff_version_message(version),
        };
    }
    if let Some(problem) = neff_bad_header(bytes) {
        return ImportError::Invalid {
            format: "NEFF",
            message: format!("'{shown}' has a NEFF payload but its header is damaged: {problem}"),
        };
    }
    let mut hint = String::new();
    if let Some(n) = notes.iter().find(|n| n.file == name && n.kind == WarningKind::ContainerTruncated) {
        hint.push_str(&format!("; {}", n.message));
    }
    if bytes.iter().all(|&c| c == 0) {
        hint.push_str("; the data is all zero bytes");
    }
    ImportError::UnknownFormat(format!("{}{hint}", describe_unknown(name, bytes)))
}

/// UTF-16 text by its byte-order mark, or ASCII with every other byte NUL (no mark).
fn utf16_text(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(&[0xFF, 0xFE]) {
        return Some("little-endian, byte-order mark FF FE");
    }
    if b.starts_with(&[0xFE, 0xFF]) {
        return Some("big-endian, byte-order mark FE FF");
    }
    let head = &b[..b.len().min(64)];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.chunks_exact(2);
    let le = pairs.clone().all(|p| p[1] == 0 && p[0] != 0 && p[0] < 0x80);
    let be = pairs.clone().all(|p| p[0] == 0 && p[1] != 0 && p[1] < 0x80);
    let jsonish = |c: u8| matches!(c, b'{' | b'[' | b' ' | b'\t' | b'\r' | b'\n');
    if le && jsonish(head[0]) {
        return Some("little-endian, no byte-order mark");
    }
    if be && jsonish(head[1]) {
        return Some("big-endian, no byte-order mark");
    }
    None
}

/// The version byte of a file with the NTFF header structure whose version is not one the
/// binary importer claims (0 or above 63).
fn ntff_other_version(b: &[u8]) -> Option<u8> {
    if b.len() < 0x81 {
        return None;
    }
    let v = b[0];
    let structure = b[1..4] != [0, 0, 0]
        && b[4..8].iter().all(|&c| c == 0)
        && b[0x10..0x80].iter().all(|&c| c == 0)
        && b[0x80] == 0x0a;
    (structure && v != crate::neuron::ntff::SUPPORTED_VERSION).then_some(v)
}

/// What is wrong with the header of a file that carries a NEFF payload (gzip or tar at byte
/// 1024) but was not recognised because of its header.
fn neff_bad_header(b: &[u8]) -> Option<String> {
    use crate::neuron::neff::{NeffHeader, HEADER_SIZE};
    let p = b.get(HEADER_SIZE..)?;
    let gzip = p.len() >= 3 && p[..3] == [0x1f, 0x8b, 8];
    let tar = p.len() >= 512 && &p[257..262] == b"ustar";
    if !(gzip || tar) {
        return None;
    }
    NeffHeader::decode(b).problem()
}

/// A short, safe description of an unrecognised file for the error message.
fn describe_unknown(name: &str, bytes: &[u8]) -> String {
    let head: String =
        bytes.iter().take(16).map(|&c| if (0x20..0x7f).contains(&c) { c as char } else { '.' }).collect();
    let name = container::printable(name);
    format!(" in '{name}' ({} bytes, starts with \"{head}\")", bytes.len())
}
