//! `analysis::ranks`: per-rank breakdowns, collectives across ranks, stragglers and clock
//! alignment.
//!
//! - A generated job of 8 ranks made from one real Kineto trace (read here, changed in memory):
//!   each rank's clock shifted by a known offset, its NCCL kernels started late by a known delay
//!   (ending when they did: a late arrival waits less), rank 5 by far the latest, rank 2's
//!   kernels ending 3 µs early, rank 6 missing its last NCCL kernel. Every skew, duration, the
//!   straggler and the offsets follow from the construction.
//! - The real pair `hta__trace_filter_sampled_rank-{0,1}`: the per-rank temporal breakdown under
//!   HTA's definitions against HTA 0.5.0 (`get_temporal_breakdown`, printed by
//!   `scripts/hta_oracle.py`'s `hta()`), and the collectives against
//!   `scripts/collectives_oracle.py` (an independent read of the JSON).
//!
//! The shared samples are required: a missing one fails the test.

use std::io::Read;

use loupe_core::analysis::gpu::GpuOptions;
use loupe_core::analysis::ranks::{ranks_report, Align, RankOffset, RanksReport};
use loupe_core::import::{import_files, InputFile, NoProgress};
use loupe_core::Trace;
use serde_json::Value;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples/pytorch-kineto");
const RANKS: i64 = 8;
/// The rank that arrives late at every collective.
const SLOW: i64 = 5;
/// Its delay, µs.
const SLOW_US: i64 = 5000;
/// Rank 2's NCCL kernels end this many µs early.
const EARLY_END_US: i64 = 3;
/// Rank 6 lacks its last NCCL kernel.
const SHORT: i64 = 6;

fn read_json(name: &str) -> Value {
    let path = format!("{SAMPLES}/{name}");
    let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{path} must exist: {e}"));
    let mut s = String::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut s).expect("gzip");
    serde_json::from_str(&s).expect("json")
}

/// Clock offset of rank r, µs (rank 7 is latest as recorded).
fn clock_us(r: i64) -> i64 {
    (r - 4) * 1_000_003
}

/// How late rank r starts its i-th NCCL kernel, µs.
fn delay_us(r: i64, i: i64) -> i64 {
    if r == SLOW {
        SLOW_US
    } else {
        r * 10 + i
    }
}

fn is_nccl(e: &Value) -> bool {
    e["cat"] == "kernel" && e["name"].as_str().is_some_and(|n| n.starts_with("nccl"))
}

fn add(v: &mut Value, us: i64) {
    *v = match &*v {
        Value::Number(n) if n.is_i64() => Value::from(n.as_i64().unwrap() + us),
        Value::Number(n) if n.is_u64() => Value::from((n.as_u64().unwrap() as i64 + us) as u64),
        // durations are written like 30669.0: whole µs
        Value::Number(n) => {
            let f = n.as_f64().unwrap();
            assert_eq!(f.fract(), 0.0, "a whole-µs value");
            Value::from(f as i64 + us)
        }
        other => panic!("not a number: {other}"),
    };
}

/// The base trace's NCCL kernels (start µs, dur µs) in start order.
fn base_nccl(base: &Value) -> Vec<(i64, i64)> {
    let mut v: Vec<(i64, i64)> = base["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| is_nccl(e))
        .map(|e| (e["ts"].as_i64().unwrap(), e["dur"].as_f64().unwrap() as i64))
        .collect();
    v.sort();
    v
}

fn make_rank(base: &Value, r: i64) -> Vec<u8> {
    let mut doc = base.clone();
    doc["distributedInfo"]["rank"] = Value::from(r);
    doc["distributedInfo"]["world_size"] = Value::from(RANKS);
    let nccl = base_nccl(base);
    let events = doc["traceEvents"].as_array_mut().unwrap();
    if r == SHORT {
        let last = nccl.last().unwrap().0;
        events.retain(|e| !(is_nccl(e) && e["ts"].as_i64() == Some(last)));
    }
    for e in events.iter_mut() {
        if is_nccl(e) {
            let ts = e["ts"].as_i64().unwrap();
            let i = nccl.iter().position(|x| x.0 == ts).unwrap() as i64;
            let d = delay_us(r, i);
            add(&mut e["ts"], d);
            add(&mut e["dur"], -d - if r == 2 { EARLY_END_US } else { 0 });
        }
        if e.get("ts").is_some() {
            add(&mut e["ts"], clock_us(r));
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

fn job() -> (Trace, Vec<(i64, i64)>) {
    let base = read_json("hta__trace_filter_sampled_rank-0.json.gz");
    let files: Vec<(String, Vec<u8>)> =
        (0..RANKS).map(|r| (format!("job/worker{r}.pt.trace.json"), make_rank(&base, r))).collect();
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    let t = import_files(&inputs, &mut NoProgress).expect("the job loads");
    t.validate().expect("valid");
    (t, base_nccl(&base))
}

fn median(mut v: Vec<i64>) -> i64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]).div_euclid(2)
    }
}

/// The expected start (ns, recorded) and duration of rank r's i-th NCCL kernel.
fn expected(base: &[(i64, i64)], r: i64, i: i64) -> Option<(i64, i64)> {
    if r == SHORT && i as usize == base.len() - 1 {
        return None;
    }
    let (ts, dur) = base[i as usize];
    let d = delay_us(r, i);
    let early = if r == 2 { EARLY_END_US } else { 0 };
    Some(((ts + d + clock_us(r)) * 1000, (dur - d - early) * 1000))
}

fn check_collectives(rep: &RanksReport, base: &[(i64, i64)], offset_us: impl Fn(i64) -> i64) {
    assert_eq!(rep.collectives.len(), base.len(), "one instance per NCCL kernel of the base trace");
    let last = base.len() as i64 - 1;
    for (i, c) in rep.collectives.iter().enumerate() {
        let i = i as i64;
        assert_eq!(c.seq as i64, i, "instances in start order");
        let present: Vec<i64> = (0..RANKS).filter(|&r| expected(base, r, i).is_some()).collect();
        assert_eq!(c.ranks, present);
        assert_eq!(c.missing, if i == last { vec![SHORT] } else { vec![] });
        let starts: Vec<(i64, i64)> =
            present.iter().map(|&r| (r, expected(base, r, i).unwrap().0 + offset_us(r) * 1000)).collect();
        let durs: Vec<i64> = present.iter().map(|&r| expected(base, r, i).unwrap().1).collect();
        let (lo, hi) = (starts.iter().map(|x| x.1).min().unwrap(), starts.iter().map(|x| x.1).max().unwrap());
        assert_eq!(c.start_skew_ns, hi - lo, "instance {i} skew");
        assert_eq!(c.last_rank, starts.iter().find(|x| x.1 == hi).map(|x| x.0), "instance {i} last");
        assert_eq!(c.dur_min_ns, *durs.iter().min().unwrap());
        assert_eq!(c.dur_max_ns, *durs.iter().max().unwrap());
        assert_eq!(c.dur_median_ns, median(durs));
        assert_eq!((c.bytes, c.algbw_gbps), (None, None), "the sample's NCCL kernels carry no message size");
    }
}

#[test]
fn generated_job_of_eight_ranks() {
    let (t, base) = job();
    assert_eq!(base.len(), 10, "the sample's NCCL kernels");
    let rep = ranks_report(&t, &GpuOptions::default(), Align::AsRecorded).expect("report");
    println!("{}", serde_json::to_string(&rep.stragglers).unwrap());

    // rows: ranks 0..7 from distributedInfo, two iterations each, consistent breakdowns
    assert_eq!(rep.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), (0..RANKS).collect::<Vec<_>>());
    for r in &rep.ranks {
        assert_eq!(r.file.as_deref(), Some(format!("job/worker{}.pt.trace.json", r.rank).as_str()));
        assert_eq!(r.iterations, 2);
        assert_eq!(r.idle_ns + r.compute_ns + r.non_compute_ns, r.kernel_ns);
        let e = r.exposed_comm_ns.expect("a GPU rank's communication is known");
        assert!(e > 0 && e <= r.non_compute_ns, "{r:?}");
    }
    // rank 3's kernels are rank 0's moved by a clock offset, its NCCL kernels started later
    // and ending when they did: the same span and compute
    let (r0, r3) = (&rep.ranks[0], &rep.ranks[3]);
    assert_eq!((r3.kernel_ns, r3.compute_ns), (r0.kernel_ns, r0.compute_ns));
    for s in &rep.steps {
        let numbers: Vec<i64> = s.steps.iter().map(|x| x.number).collect();
        assert_eq!(numbers, vec![551, 552]);
        assert_eq!(s.steps[0].start_ns, (1_682_725_898_079_292 + clock_us(s.rank)) * 1000);
        assert_eq!(s.steps[0].dur_ns, 607_312_000);
    }
    // mismatched counts are reported, not filled in
    assert_eq!(rep.mismatches.len(), 1);
    let counts: Vec<(i64, usize)> = (0..RANKS).map(|r| (r, if r == SHORT { 9 } else { 10 })).collect();
    assert_eq!(rep.mismatches[0].counts, counts);

    // as recorded: the clock offsets dominate, rank 7 looks last
    assert!(rep.offsets.iter().all(|o| o.offset_ns == Some(0)));
    check_collectives(&rep, &base, |_| 0);
    assert_eq!(rep.stragglers[0].rank, 7);
    assert_eq!(rep.stragglers[0].last_count, 9);

    // aligned on ProfilerStep#551: the clocks cancel, rank 5 is the straggler
    let rep = ranks_report(&t, &GpuOptions::default(), Align::Iteration(551)).expect("aligned");
    let want: Vec<RankOffset> = (0..RANKS)
        .map(|r| RankOffset { rank: r, offset_ns: Some((clock_us(0) - clock_us(r)) * 1000) })
        .collect();
    assert_eq!(rep.offsets, want);
    check_collectives(&rep, &base, |r| clock_us(0) - clock_us(r));
    for (i, c) in rep.collectives.iter().enumerate() {
        // rank 0 starts first (delay i), rank 5 last (delay 5000 µs)
        assert_eq!(c.start_skew_ns, (SLOW_US - i as i64) * 1000);
        assert_eq!(c.last_rank, Some(SLOW));
    }
    let order: Vec<i64> = rep.stragglers.iter().map(|s| s.rank).collect();
    assert_eq!(order, vec![5, 7, 6, 4, 3, 2, 1, 0]);
    let complete = 9; // the last instance misses rank 6
    for s in &rep.stragglers {
        assert_eq!(s.instances, complete);
        if s.rank == SLOW {
            assert_eq!(s.last_count, complete);
            // mean over i = 0..8 of (5000 − i) µs
            let sum: i64 = (0..complete as i64).map(|i| (SLOW_US - i) * 1000).sum();
            assert_eq!(s.mean_lateness_ns, sum / complete as i64);
            assert_eq!(s.max_lateness_ns, SLOW_US * 1000);
        } else {
            assert_eq!(s.last_count, 0);
            assert_eq!(s.mean_lateness_ns, s.rank * 10_000, "rank {}", s.rank);
        }
    }

    // aligned on the end of collective 0: rank 2's kernels end 3 µs early, so its offset differs
    let rep = ranks_report(&t, &GpuOptions::default(), Align::Collective(0)).expect("aligned");
    let want: Vec<RankOffset> = (0..RANKS)
        .map(|r| {
            let early = if r == 2 { EARLY_END_US } else { 0 };
            RankOffset { rank: r, offset_ns: Some((clock_us(0) - clock_us(r) + early) * 1000) }
        })
        .collect();
    assert_eq!(rep.offsets, want);
    // the last complete instance (8) can anchor too; instance 9 is not complete
    assert!(ranks_report(&t, &GpuOptions::default(), Align::Collective(8)).is_ok());
    let err = ranks_report(&t, &GpuOptions::default(), Align::Collective(9)).unwrap_err();
    assert!(err.contains("9 complete collectives"), "{err}");
    let err = ranks_report(&t, &GpuOptions::default(), Align::Iteration(7)).unwrap_err();
    assert!(err.contains("ProfilerStep#7"), "{err}");

    // realign is the same as asking for the alignment up front
    let mut again = ranks_report(&t, &GpuOptions::default(), Align::AsRecorded).unwrap();
    again.realign(Align::Collective(0)).unwrap();
    assert_eq!(again, rep);
}

fn pair() -> Trace {
    let files: Vec<(String, Vec<u8>)> = (0..2)
        .map(|r| {
            let n = format!("hta__trace_filter_sampled_rank-{r}.json.gz");
            let b = std::fs::read(format!("{SAMPLES}/{n}")).unwrap_or_else(|e| panic!("{n} must exist: {e}"));
            (n, b)
        })
        .collect();
    let inputs: Vec<InputFile> = files.iter().map(|(n, b)| InputFile { name: n, bytes: b }).collect();
    import_files(&inputs, &mut NoProgress).expect("the pair loads")
}

/// `scripts/collectives_oracle.py` on the pair: (seq, skew, dur min, median, max, last rank), ns.
const PAIR_COLLECTIVES: [(usize, i64, i64, i64, i64, Option<i64>); 10] = [
    (0, 35534000, 30669000, 44296500, 57924000, Some(1)),
    (1, 109290000, 41375000, 52079000, 62783000, Some(1)),
    (2, 3302000, 8370000, 10048500, 11727000, Some(1)),
    (3, 164191000, 17614000, 32633000, 47652000, Some(1)),
    (4, 84000, 42496000, 42620000, 42744000, Some(1)),
    (5, 39645000, 39630000, 53728500, 67827000, Some(0)),
    (6, 45308000, 4624000, 12874000, 21124000, Some(1)),
    (7, 92521000, 12119000, 51445000, 90771000, Some(0)),
    (8, 22328000, 13838000, 24998000, 36158000, Some(1)),
    (9, 1292000, 62163000, 62903500, 63644000, Some(1)),
];

#[test]
fn real_pair_collectives_match_the_independent_script() {
    let t = pair();
    for opts in [GpuOptions::default(), GpuOptions::hta()] {
        let rep = ranks_report(&t, &opts, Align::AsRecorded).expect("report");
        let got: Vec<_> = rep
            .collectives
            .iter()
            .map(|c| (c.seq, c.start_skew_ns, c.dur_min_ns, c.dur_median_ns, c.dur_max_ns, c.last_rank))
            .collect();
        assert_eq!(got, PAIR_COLLECTIVES.to_vec(), "{:?}", opts.definitions);
        assert!(rep.collectives.iter().all(|c| c.ranks == vec![0, 1] && c.missing.is_empty()));
        assert!(rep.mismatches.is_empty());
        let s: Vec<_> = rep.stragglers.iter().map(|s| (s.rank, s.last_count, s.mean_lateness_ns)).collect();
        assert_eq!(s, vec![(1, 8, 38132900), (0, 2, 13216600)]);
    }
}

/// HTA 0.5.0 `get_temporal_breakdown` on the pair (pandas 2.2.3): rank, idle, compute,
/// non-compute, kernel time, µs.
const PAIR_HTA: [(i64, i64, i64, i64, i64); 2] =
    [(0, 321_378, 106_252, 172_428, 600_058), (1, 328_671, 135_548, 136_455, 600_674)];

#[test]
fn real_pair_breakdown_matches_hta() {
    let t = pair();
    let rep = ranks_report(&t, &GpuOptions::hta(), Align::AsRecorded).expect("report");
    let got: Vec<_> = rep
        .ranks
        .iter()
        .map(|r| (r.rank, r.idle_ns / 1000, r.compute_ns / 1000, r.non_compute_ns / 1000, r.kernel_ns / 1000))
        .collect();
    assert_eq!(got, PAIR_HTA.to_vec());
    for r in &rep.ranks {
        // HTA's whole µs
        assert_eq!([r.idle_ns, r.compute_ns, r.non_compute_ns, r.kernel_ns].map(|x| x % 1000), [0; 4]);
        assert_eq!(r.iterations, 2);
        let e = r.exposed_comm_ns.expect("a GPU rank's communication is known");
        assert!(e > 0 && e <= r.non_compute_ns);
    }
    assert_eq!(rep.steps.iter().map(|s| s.steps.len()).collect::<Vec<_>>(), vec![2, 2]);
}

/// A kernel with Kineto's collective arguments (`Process Group Name`, `In msg nelems`, `dtype`):
/// bytes = nelems × dtype size and algbw = bytes / duration, read here from the JSON.
#[test]
fn message_sizes_from_kineto_args() {
    let name = "hta__nccl_parser_config_nccl_data.json.gz";
    let doc = read_json(name);
    let mut want: Vec<(i64, u64, String)> = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| is_nccl(e))
        .map(|e| {
            let size = match e["args"]["dtype"].as_str().unwrap() {
                "Float" => 4,
                "Byte" => 1,
                "Long" => 8,
                d => panic!("dtype {d}"),
            };
            let dur_ns = (e["dur"].as_f64().unwrap() * 1000.0).round() as i64;
            (
                dur_ns,
                e["args"]["In msg nelems"].as_u64().unwrap() * size,
                e["args"]["Process Group Name"].to_string(),
            )
        })
        .collect();
    let bytes = std::fs::read(format!("{SAMPLES}/{name}")).unwrap();
    let t = import_files(&[InputFile { name, bytes: &bytes }], &mut NoProgress).unwrap();
    let rep = ranks_report(&t, &GpuOptions::default(), Align::AsRecorded).unwrap();
    let mut got: Vec<(i64, u64, String)> = rep
        .collectives
        .iter()
        .map(|c| (c.dur_min_ns, c.bytes.unwrap(), format!("{:?}", c.process_group.as_deref().unwrap())))
        .collect();
    assert_eq!(got.len(), 21);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    for c in &rep.collectives {
        let bw = c.bytes.unwrap() as f64 / c.dur_min_ns as f64;
        assert_eq!(c.algbw_gbps, Some(bw));
        // one rank: no skew, nobody last
        assert_eq!((c.start_skew_ns, c.last_rank, c.ranks.as_slice()), (0, None, &[0][..]));
    }
}

/// Several files that say they are ranks (here `rank-N` in their names): every group is labelled
/// with its rank, as the analyses number it; unrelated files (numbered only by their order) keep
/// their names.
#[test]
fn groups_of_ranks_say_their_rank() {
    let t = pair();
    let names: Vec<String> = t.groups.iter().map(|g| t.strings.get(g.name).to_string()).collect();
    assert!(names.len() >= 2, "{names:?}");
    let ranks = loupe_core::analysis::ranks::group_ranks(&t);
    for (n, r) in names.iter().zip(&ranks) {
        assert!(n.starts_with(&format!("rank {r} — ")), "{n:?} is rank {r}");
        assert!(n.ends_with(&format!("rank-{r}.json")), "{n:?}: rank {r}'s file");
    }
    assert!(ranks.contains(&0) && ranks.contains(&1));

    let doc = |pid: u32| {
        format!(r#"{{"traceEvents":[{{"name":"a","ph":"X","ts":1,"dur":2,"pid":{pid},"tid":1}}]}}"#)
    };
    let (a, b) = (doc(1), doc(2));
    let inputs = [
        InputFile { name: "first.json", bytes: a.as_bytes() },
        InputFile { name: "second.json", bytes: b.as_bytes() },
    ];
    let t = import_files(&inputs, &mut NoProgress).expect("loads");
    for g in &t.groups {
        let n = t.strings.get(g.name);
        assert!(!n.starts_with("rank "), "{n:?}: files that do not say they are ranks keep their names");
    }
}
