//! `analysis::ranks` on Neuron ranks: one NTFF per NeuronCore of one job (issue 41 §1–§2).
//!
//! - Four byte copies of one real capture (`../shared/samples/neuron/profile_128x128x1024.ntff`;
//!   the NEFF it was captured from is not in the samples, see their SOURCES.md, so the copies load
//!   without it) named `job/job_rank_{2,0,3,1}.ntff`, imported together through `import_files`:
//!   four ranks numbered by their names, one execution each, the execution span, compute and idle
//!   against the capture's own neuron-profile JSON export (an independent read of the same
//!   capture: its instruction and DMA packet rows), the NEFF UUID against the export's
//!   `neff_header.uuid`. A copy whose UUID differs in one byte is flagged, not merged.
//! - A generated job made from that import: every NTFF's timeline starts at its own profile
//!   start, so clocks cannot be shifted in the bytes (shifting every raw timestamp shifts the
//!   profile start with them); the job is rebuilt from the imported model instead, through
//!   `TraceBuilder`, each rank's events shifted by a known offset, rank [`SLOW`]'s execution
//!   stretched by 5/4 around its start, and a collective-operations track per rank
//!   (`TrackRole::CollectiveOps`, as Explorer's `CcOp` rows load: no shared capture has any) with
//!   arrivals late by known delays. Alignment by iteration 0 must recover every offset exactly, the
//!   slowed rank must have the longest step, every collective skew, the last rank and the
//!   straggler follow from the construction.
//!
//! The shared samples are required: a missing one fails the test.

use loupe_core::analysis::gpu::GpuOptions;
use loupe_core::analysis::ranks::{
    distinct_ranks, group_offsets, group_ranks, ranks_report, Align, RankKind, RankSource, RankWarning,
    RanksReport,
};
use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::model::{
    ArgsId, DeviceInfo, GroupKind, Layout, SliceDomain, TraceBuilder, TrackKind, TrackRole,
};
use loupe_core::strings::StrId;
use loupe_core::Trace;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/neuron/profile_128x128x1024");
/// The order the copies are given in (their names' rank numbers).
const GIVEN: [i64; 4] = [2, 0, 3, 1];
/// Clock offset injected into rank r's events, ns (rank 3 is the earliest as recorded).
const OFFSET_NS: [i64; 4] = [1_000_003, -2_500_017, 7_000_011, -9_000_001];
/// The rank whose execution is stretched by 5/4.
const SLOW: i64 = 2;

fn name(r: i64) -> String {
    format!("job/job_rank_{r}.ntff")
}

fn read(ext: &str) -> Vec<u8> {
    let p = format!("{SAMPLE}.{ext}");
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p} must exist (the shared samples beside the repo): {e}"))
}

fn import(files: &[(String, Vec<u8>)]) -> Trace {
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).expect("the copies import");
    t.validate().expect("valid model");
    t
}

fn job_files() -> Vec<(String, Vec<u8>)> {
    let ntff = read("ntff");
    GIVEN.iter().map(|&r| (name(r), ntff.clone())).collect()
}

/// The export's rows as (start, end) ns: busy instructions (semaphore waits left out), all
/// instructions, DMA packets (aggregated transfer rows left out).
type Spans = Vec<(i64, i64)>;

fn export_spans(export: &Value) -> (Spans, Spans, Spans) {
    let span = |r: &Value| {
        let ts = r["timestamp"].as_i64().expect("timestamp");
        (ts, ts + r["duration"].as_i64().expect("duration"))
    };
    let ins = export["instruction"].as_array().expect("instruction rows");
    let busy = ins.iter().filter(|r| r["opcode"] != "EVENT_SEMAPHORE").map(span).collect();
    let all = ins.iter().map(span).collect();
    let dma = export["dma"]
        .as_array()
        .expect("dma rows")
        .iter()
        .filter(|r| r["aggregated"].as_str() != Some("yes") && r["aggregated"] != Value::Bool(true))
        .map(span)
        .collect();
    (busy, all, dma)
}

fn union_ns(mut v: Vec<(i64, i64)>) -> i64 {
    v.sort_unstable();
    let (mut sum, mut cur): (i64, Option<(i64, i64)>) = (0, None);
    for (s, e) in v {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                sum += ce - cs;
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    sum + cur.map_or(0, |(s, e)| e - s)
}

#[test]
fn ntff_copies_are_ranks_numbered_by_their_names() {
    let trace = import(&job_files());
    let export: Value = serde_json::from_slice(&read("json")).expect("export JSON");
    assert_eq!(distinct_ranks(&trace), vec![0, 1, 2, 3]);
    // every group is the rank its file's name states
    let gr = group_ranks(&trace);
    for (g, group) in trace.groups.iter().enumerate() {
        let file = trace.str(group.source_file.expect("a group records its file"));
        assert_eq!(file, name(gr[g]), "group {g} is numbered by its file's name");
    }
    // each rank one top-level group, labelled with its rank (the import's group names)
    assert_eq!(trace.groups.len(), 4);
    for (g, group) in trace.groups.iter().enumerate() {
        let label = trace.str(group.name);
        assert!(label.starts_with(&format!("rank {} — ", gr[g])), "{label}");
        assert!(label.ends_with(&format!("job_rank_{}.ntff", gr[g])), "{label}");
    }

    let rep = ranks_report(&trace, &GpuOptions::default(), Align::AsRecorded).expect("a report");
    assert_eq!(rep.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    let (busy, all, dma) = export_spans(&export);
    let first = all.iter().chain(&dma).map(|x| x.0).min().unwrap();
    let last = all.iter().chain(&dma).map(|x| x.1).max().unwrap();
    let span = last - first;
    let compute = union_ns(busy.clone());
    let active = union_ns(busy.into_iter().chain(dma).collect());
    let uuid = export["neff_header"][0]["uuid"].as_str().expect("neff_header.uuid");
    for r in &rep.ranks {
        assert_eq!(r.kind, RankKind::Neuron);
        assert_eq!(r.numbered_by, RankSource::FileName);
        assert_eq!(r.file.as_deref(), Some(name(r.rank).as_str()));
        assert_eq!(r.iterations, 1, "one NEFF execution per capture");
        assert_eq!(r.kernel_ns, span, "rank {}: execution span = the export's first to last event", r.rank);
        assert_eq!(r.compute_ns, compute, "rank {}: engines' busy union", r.rank);
        assert_eq!(r.idle_ns, span - active, "rank {}: span − active", r.rank);
        assert_eq!(r.non_compute_ns, active - compute, "rank {}: DMA-only time", r.rank);
        assert!(r.compute_ns > 0 && r.idle_ns > 0 && r.non_compute_ns > 0, "{r:?}");
        assert_eq!(r.neuron_core, None, "an NTFF does not carry its NeuronCore");
        let u = r.neff_uuid.as_deref().expect("the capture states its NEFF UUID");
        assert!(!r.neff_uuid_truncated && u.len() == 32 && uuid.starts_with(u), "{u} vs {uuid}");
        let steps = &rep.steps.iter().find(|s| s.rank == r.rank).unwrap().steps;
        assert_eq!(steps.len(), 1);
        assert_eq!((steps[0].number, steps[0].start_ns, steps[0].dur_ns), (0, first, span));
    }
    // the program has no memory for collectives (the export's nc_mem_usage says so too): none
    // can run, exposed communication is 0 (a generated job below has the unknown case)
    let cc_bytes: i64 = export["nc_mem_usage"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["usage_type"] == "Collectives" || r["usage_type"] == "DMA Rings Collectives")
        .map(|r| r["amount_bytes"].as_i64().unwrap())
        .sum();
    assert_eq!(cc_bytes, 0);
    assert!(rep.ranks.iter().all(|r| r.exposed_comm_ns == Some(0)));
    assert!(rep.collectives.is_empty() && rep.warnings.is_empty(), "{:?}", rep.warnings);
    // one capture copied: iteration 0 starts at the same time everywhere
    let mut rep2 = rep.clone();
    rep2.realign(Align::Iteration(0)).unwrap();
    assert!(rep2.offsets.iter().all(|o| o.offset_ns == Some(0)), "{:?}", rep2.offsets);
    assert!(rep2.realign(Align::Iteration(1)).is_err(), "a capture holds one execution");
}

#[test]
fn a_capture_of_another_neff_is_flagged_not_merged() {
    let mut files = job_files();
    let export: Value = serde_json::from_slice(&read("json")).expect("export JSON");
    let uuid = export["neff_header"][0]["uuid"].as_str().unwrap();
    let raw: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&uuid[2 * i..2 * i + 2], 16).unwrap()).collect();
    // the UUID's bytes in the metadata (field 2), changed in their last byte (never to 0x00)
    let bytes = &mut files[2].1; // rank 3
    let at = bytes.windows(16).position(|w| w == raw.as_slice()).expect("the UUID is in the metadata");
    bytes[at + 15] = if raw[15] == 0x5a { 0x5b } else { 0x5a };
    let trace = import(&files);
    let rep = ranks_report(&trace, &GpuOptions::default(), Align::AsRecorded).unwrap();
    assert_eq!(rep.ranks.len(), 4, "still four ranks");
    let [RankWarning::NeffMismatch { neffs }] = rep.warnings.as_slice() else {
        panic!("one typed NEFF mismatch, got {:?}", rep.warnings)
    };
    assert_eq!(neffs.len(), 2);
    assert_eq!(neffs[0].ranks, vec![0, 1, 2]);
    assert_eq!(neffs[0].uuid, uuid);
    assert_eq!(neffs[1].ranks, vec![3]);
    assert_ne!(neffs[1].uuid, uuid);
    assert!(rep.warnings[0].message().contains("2 different NEFFs"), "{}", rep.warnings[0].message());
}

/// Per rank: (name, start after the rank's execution start, duration) of its collective
/// operations, as recorded before the offset; rank r arrives `delay_ns(r, i)` late at the i-th.
const OPS: [(&str, i64, i64); 3] =
    [("AllReduce", 10_000, 4_000), ("AllGather", 30_000, 2_000), ("AllReduce", 50_000, 4_000)];

fn delay_ns(r: i64, i: usize) -> i64 {
    if r == SLOW {
        900 + i as i64
    } else {
        r * 10 + i as i64
    }
}

/// The import of the four copies rebuilt with rank r's events at `t + OFFSET_NS[r]` (rank
/// [`SLOW`]'s execution stretched by 5/4 around its start first) and its collective operations.
/// `collectives`: add the collective operations; `cc_memory`: the device memory for collectives
/// stated (bytes), else the capture's.
fn generated_job(base: &Trace, collectives: bool, cc_memory: Option<u64>) -> Trace {
    let ranks = group_ranks(base);
    let first = |g: usize| {
        base.groups[g]
            .tracks
            .iter()
            .map(|t| &base.tracks[t.idx()])
            .filter(|t| t.role.engine().is_some() || t.role == TrackRole::DmaQueue)
            .flat_map(|t| t.slices.start_ns.iter().copied())
            .min()
            .expect("events")
    };
    let mut b = TraceBuilder::new("generated Neuron job");
    for (g, group) in base.groups.iter().enumerate() {
        let r = ranks[g];
        let (s0, off) = (first(g), OFFSET_NS[r as usize]);
        let at = |t: i64| if r == SLOW { s0 + (t - s0) * 5 / 4 + off } else { t + off };
        let ng = b.add_group(base.str(group.name), group.kind);
        b.set_group_source_file(ng, base.str(group.source_file.unwrap()));
        if let Some(d) = &group.device {
            let uuid = d.neff_uuid.map(|u| b.intern(base.str(u)));
            let info = DeviceInfo {
                neff_uuid: uuid,
                neff_uuid_truncated: d.neff_uuid_truncated,
                neuron_core: d.neuron_core,
                memory: d.memory.map(|mut m| {
                    m.collectives_bytes = cc_memory.unwrap_or(m.collectives_bytes);
                    m
                }),
                ..DeviceInfo::default()
            };
            b.set_group_device(ng, info);
        }
        for &tid in &group.tracks {
            let t = &base.tracks[tid.idx()];
            if t.role.is_derived() || t.slices.is_empty() {
                continue;
            }
            let nt = b.add_track(ng, base.str(t.name), t.kind, base.str(t.source_id));
            b.set_track_role(nt, t.role);
            b.set_track_layout(nt, t.layout);
            b.set_track_sort(nt, t.sort_index);
            let c = &t.slices;
            for i in 0..c.len() {
                let (s, e) = (at(c.start_ns[i]), at(c.end_ns(i)));
                let (n, cat) = (b.intern(base.str(c.name[i])), b.intern(base.str(c.category[i])));
                let h = b.add_slice(nt, s, e - s, n, cat, ArgsId::NONE);
                let op = c.opcode_of(i);
                if op != StrId::EMPTY {
                    let opcode = b.intern(base.str(op));
                    b.set_slice_domain(h, SliceDomain { opcode, ..SliceDomain::default() });
                }
            }
        }
        if collectives && group.kind == GroupKind::Device {
            let t = b.add_track(ng, "CC operations", TrackKind::Stream, "CC operations");
            b.set_track_role(t, TrackRole::CollectiveOps);
            b.set_track_layout(t, Layout::Lanes);
            let cat = b.intern("cc_op");
            for (i, &(op, after, dur)) in OPS.iter().enumerate() {
                let n = b.intern(op);
                // arrive late, leave together (the slow one waits least)
                let start = s0 + after + delay_ns(r, i);
                let end = s0 + after + dur;
                b.add_slice(t, start + off, end - start, n, cat, ArgsId::NONE);
            }
        }
    }
    let t = b.finish();
    t.validate().expect("valid generated job");
    t
}

fn report(t: &Trace, align: Align) -> RanksReport {
    ranks_report(t, &GpuOptions::default(), align).expect("a report")
}

#[test]
fn a_generated_job_recovers_offsets_the_straggler_and_the_skews() {
    let base = import(&job_files());
    let base_rep = report(&base, Align::AsRecorded);
    let base_span = base_rep.ranks[0].kernel_ns;
    let job = generated_job(&base, true, None);
    assert_eq!(distinct_ranks(&job), vec![0, 1, 2, 3]);
    let labels: Vec<&str> = job.groups.iter().map(|g| job.str(g.name)).collect();
    for (g, r) in group_ranks(&job).iter().enumerate() {
        assert!(labels[g].starts_with(&format!("rank {r} — ")), "{labels:?}");
    }

    // as recorded: each execution starts at its offset
    let rec = report(&job, Align::AsRecorded);
    let start = |rep: &RanksReport, r: i64| rep.steps.iter().find(|s| s.rank == r).unwrap().steps[0].start_ns;
    let s0 = start(&base_rep, 0);
    for r in 0..4 {
        assert_eq!(start(&rec, r), s0 + OFFSET_NS[r as usize], "rank {r} as recorded");
    }

    // iteration 0: every injected offset recovered exactly (relative to rank 0)
    let rep = report(&job, Align::Iteration(0));
    for o in &rep.offsets {
        assert_eq!(o.offset_ns, Some(OFFSET_NS[0] - OFFSET_NS[o.rank as usize]), "rank {}", o.rank);
    }
    // the timeline's view of it: each group takes its rank's offset
    let go = group_offsets(&group_ranks(&job), &rep.offsets);
    for (g, r) in group_ranks(&job).iter().enumerate() {
        assert_eq!(go[g], OFFSET_NS[0] - OFFSET_NS[*r as usize]);
    }

    // the slowed rank has the longest step, stretched by 5/4 (± 1 ns of flooring)
    let longest = rep.steps.iter().max_by_key(|s| s.steps[0].dur_ns).unwrap();
    assert_eq!(longest.rank, SLOW);
    let slow = rep.ranks.iter().find(|r| r.rank == SLOW).unwrap();
    assert!((slow.kernel_ns - base_span * 5 / 4).abs() <= 1, "{} vs {}", slow.kernel_ns, base_span * 5 / 4);
    for r in rep.ranks.iter().filter(|r| r.rank != SLOW) {
        assert_eq!(r.kernel_ns, base_span, "rank {} keeps the capture's span", r.rank);
    }

    // collectives: matched by name and occurrence, skews and last rank by construction
    assert_eq!(rep.collectives.len(), 3, "{:?}", rep.collectives);
    assert!(rep.mismatches.is_empty());
    let mut seen = std::collections::HashMap::new();
    for (i, &(op, _, dur)) in OPS.iter().enumerate() {
        let seq = *seen.entry(op).and_modify(|n| *n += 1).or_insert(0usize);
        let c = rep.collectives.iter().find(|c| c.name == op && c.seq == seq).expect("the instance");
        assert!(c.is_complete() && c.ranks == vec![0, 1, 2, 3]);
        let delays: Vec<i64> = (0..4).map(|r| delay_ns(r, i)).collect();
        let skew = delays.iter().max().unwrap() - delays.iter().min().unwrap();
        assert_eq!(c.start_skew_ns, skew, "{op}#{seq} on aligned clocks");
        assert_eq!(c.last_rank, Some(SLOW));
        assert_eq!(c.dur_max_ns, dur - delays.iter().min().unwrap());
        assert_eq!(c.dur_min_ns, dur - delays[SLOW as usize]);
    }
    assert_eq!(rep.stragglers[0].rank, SLOW);
    assert_eq!(rep.stragglers[0].last_count, 3);
    assert_eq!(rep.stragglers[0].mean_lateness_ns, 900, "900 + i after rank 0's i, every time");
    // exposed communication is now known: the collectives' union minus the engines' busy time
    for r in &rep.ranks {
        let e = r.exposed_comm_ns.expect("collective operations are in the input");
        assert!(e >= 0 && e <= OPS.iter().map(|o| o.2).sum::<i64>(), "rank {}: {e}", r.rank);
    }

    // without collective operations but with memory for them, exposed communication is not
    // known: none, never a fake 0
    let unknown = report(&generated_job(&base, false, Some(1 << 20)), Align::Iteration(0));
    assert!(unknown.ranks.iter().all(|r| r.exposed_comm_ns.is_none()));
    assert!(unknown.collectives.is_empty());

    // as recorded the clocks are 1–16 ms apart: the skew is the offsets', not the delays'
    let c0 = &rec.collectives[0];
    assert_eq!(c0.last_rank, Some(2), "rank 2 has the latest clock (offset 7 ms)");
    assert!(c0.start_skew_ns > 16_000_000 - 1000);

    // the end of collective n aligns the ranks on the moment they leave it: the same offsets
    let by_cc = report(&job, Align::Collective(1));
    for o in &by_cc.offsets {
        assert_eq!(o.offset_ns, Some(OFFSET_NS[0] - OFFSET_NS[o.rank as usize]), "rank {}", o.rank);
    }
}
