//! `loupe ranks FILE... [--json] [--align recorded|iteration:K|collective:N]`: one job, one rank
//! per file (`loupe_core::analysis::ranks`): per-rank breakdown, collectives matched across
//! ranks, stragglers, as JSON or text. GPU ranks (Kineto, …) and Neuron ranks (one NTFF per
//! NeuronCore: `kind`, `neuron_core`, `neff_uuid`; the NEFF check's `warnings`).

use loupe_core::analysis::ranks::{Collective, RankKind, RanksReport};
use loupe_core::time::format_duration_ns as dur;

pub fn json(files: &[String], r: &RanksReport) -> serde_json::Value {
    let ranks: Vec<serde_json::Value> = r
        .ranks
        .iter()
        .map(|x| {
            serde_json::json!({
                "rank": x.rank,
                "file": x.file,
                "kind": x.kind,
                "numbered_by": x.numbered_by,
                "iterations": x.iterations,
                "idle_ns": x.idle_ns,
                "compute_ns": x.compute_ns,
                "non_compute_ns": x.non_compute_ns,
                "kernel_ns": x.kernel_ns,
                "exposed_comm_ns": x.exposed_comm_ns,
                "neuron_core": x.neuron_core,
                "neuron_core_from": x.neuron_core_from,
                "neff_uuid": x.neff_uuid,
                "neff_uuid_truncated": x.neff_uuid_truncated,
                "step_ns": r.steps.iter().find(|s| s.rank == x.rank).map(|s| {
                    s.steps.iter().map(|k| serde_json::json!({"step": k.number, "dur_ns": k.dur_ns})).collect::<Vec<_>>()
                }),
            })
        })
        .collect();
    let collectives: Vec<serde_json::Value> = r.collectives.iter().map(collective_json).collect();
    let stragglers: Vec<serde_json::Value> = r
        .stragglers
        .iter()
        .map(|s| {
            serde_json::json!({
                "rank": s.rank,
                "last_count": s.last_count,
                "mean_lateness_ns": s.mean_lateness_ns,
                "max_lateness_ns": s.max_lateness_ns,
                "instances": s.instances,
            })
        })
        .collect();
    serde_json::json!({
        "files": files,
        "align": r.align,
        "offsets": r.offsets,
        "ranks": ranks,
        "collectives": collectives,
        "stragglers": stragglers,
        "mismatches": r.mismatches,
        "warnings": r.warnings.iter().map(|w| {
            let mut v = serde_json::to_value(w).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("message".into(), w.message().into());
            }
            v
        }).collect::<Vec<_>>(),
    })
}

fn collective_json(c: &Collective) -> serde_json::Value {
    serde_json::json!({
        "name": c.name,
        "process_group": c.process_group,
        "seq": c.seq,
        "ranks": c.ranks,
        "missing": c.missing,
        "start_skew_ns": c.start_skew_ns,
        "dur_min_ns": c.dur_min_ns,
        "dur_median_ns": c.dur_median_ns,
        "dur_max_ns": c.dur_max_ns,
        "last_rank": c.last_rank,
        "bytes": c.bytes,
        "algbw_gbps": c.algbw_gbps,
    })
}

/// Collectives listed in the text form (the largest skews).
const LISTED: usize = 20;

pub fn text_report(r: &RanksReport) -> Vec<String> {
    let mut v = vec![format!(
        "{:>6}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>14}  file",
        "rank", "iterations", "span", "idle", "compute", "non-compute", "exposed comm"
    )];
    for x in &r.ranks {
        let what = match x.kind {
            RankKind::Gpu => String::new(),
            RankKind::Neuron => format!(
                " (Neuron{}{})",
                x.neuron_core.map_or(String::new(), |c| format!(", NeuronCore {c}")),
                x.neff_uuid.as_deref().map_or(String::new(), |u| format!(", NEFF {u}"))
            ),
        };
        v.push(format!(
            "{:>6}  {:>10}  {:>12}  {:>12}  {:>12}  {:>12}  {:>14}  {}{what}",
            x.rank,
            x.iterations,
            dur(x.kernel_ns),
            dur(x.idle_ns),
            dur(x.compute_ns),
            dur(x.non_compute_ns),
            x.exposed_comm_ns.map_or("not known".into(), dur),
            x.file.as_deref().unwrap_or("")
        ));
    }
    for w in &r.warnings {
        v.push(format!("warning: {}", w.message()));
    }
    for s in &r.steps {
        if !s.steps.is_empty() {
            let cells: Vec<String> =
                s.steps.iter().map(|k| format!("#{} {}", k.number, dur(k.dur_ns))).collect();
            v.push(format!("rank {} steps: {}", s.rank, cells.join(", ")));
        }
    }
    let offs: Vec<String> = r
        .offsets
        .iter()
        .map(|o| format!("{}: {}", o.rank, o.offset_ns.map_or("-".into(), |x| format!("{x} ns"))))
        .collect();
    v.push(format!("clock alignment {:?}, offsets {}", r.align, offs.join(", ")));
    v.push(format!("collectives: {} instances", r.collectives.len()));
    let mut by_skew: Vec<&Collective> = r.collectives.iter().collect();
    by_skew.sort_by(|a, b| b.start_skew_ns.cmp(&a.start_skew_ns).then_with(|| a.seq.cmp(&b.seq)));
    for c in by_skew.iter().take(LISTED) {
        v.push(format!(
            "  skew {:>12}  dur {} / {} / {}  last {}  #{} {}{}{}",
            dur(c.start_skew_ns),
            dur(c.dur_min_ns),
            dur(c.dur_median_ns),
            dur(c.dur_max_ns),
            c.last_rank.map_or("-".into(), |x| x.to_string()),
            c.seq,
            c.name,
            c.process_group.as_deref().map_or(String::new(), |p| format!(" (group {p})")),
            if c.missing.is_empty() { String::new() } else { format!(" missing on {:?}", c.missing) },
        ));
    }
    if r.collectives.len() > LISTED {
        v.push(format!("  … {} more (--json lists all)", r.collectives.len() - LISTED));
    }
    for m in &r.mismatches {
        let counts: Vec<String> = m.counts.iter().map(|(r, n)| format!("{r}: {n}")).collect();
        v.push(format!("counts differ across ranks for {}: {}", m.name, counts.join(", ")));
    }
    v.push("stragglers (times last, mean lateness):".into());
    for s in &r.stragglers {
        v.push(format!(
            "  rank {:>4}  last {:>5} of {:<5}  mean lateness {:>12}  max {:>12}",
            s.rank,
            s.last_count,
            s.instances,
            dur(s.mean_lateness_ns),
            dur(s.max_lateness_ns)
        ));
    }
    v
}
