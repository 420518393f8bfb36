//! `TraceBuilder::finish` on its own (issue 7 §5): small hand-built inputs, no importer, exact
//! expected columns. Covers sorting, depth assignment (nesting and lanes), spilling overlaps,
//! the lane limit, flow binding, instants and counters, time bounds, negative durations, the LOD
//! index and ordering metadata. Every finished trace must pass `Trace::validate`.

use loupe_core::lod::{self, LodItem};
use loupe_core::model::builder::MAX_LANES;
use loupe_core::model::WarningKind;
use loupe_core::model::{
    ArgValue, ArgsId, FlowEnd, GroupKind, Layout, SliceDomain, SliceHandle, SliceRef, Trace, TraceBuilder,
    TrackId, TrackKind, TrackRole,
};
use loupe_core::StrId;

// ---- helpers ----

fn slice(b: &mut TraceBuilder, t: TrackId, start_ns: i64, dur_ns: i64, name: &str) -> SliceHandle {
    let n = b.intern(name);
    b.add_slice(t, start_ns, dur_ns, n, StrId::EMPTY, ArgsId::NONE)
}

/// A track's slices in column order as (depth, start, dur, name).
fn layout(t: &Trace, track: usize) -> Vec<(usize, i64, i64, String)> {
    let c = &t.tracks[track].slices;
    (0..c.len())
        .map(|i| (c.depth_of(i), c.start_ns[i], c.dur_ns.at(i), t.str(c.name[i]).to_string()))
        .collect()
}

fn row(depth: usize, start_ns: i64, dur_ns: i64, name: &str) -> (usize, i64, i64, String) {
    (depth, start_ns, dur_ns, name.to_string())
}

fn finish_valid(b: TraceBuilder) -> Trace {
    let t = b.finish();
    t.validate().unwrap();
    for (i, tr) in t.tracks.iter().enumerate() {
        assert_eq!(tr.lod.depths.len(), tr.slices.depth_count(), "track {i}: LOD depths");
        assert_eq!(tr.lod.gaps.len(), tr.slices.depth_count(), "track {i}: LOD gap depths");
    }
    t
}

/// The index of the slice called `name` on `track`.
fn index_of(t: &Trace, track: usize, name: &str) -> u32 {
    let c = &t.tracks[track].slices;
    (0..c.len()).find(|&i| t.str(c.name[i]) == name).unwrap() as u32
}

// ---- sorting ----

#[test]
fn slices_added_out_of_order_come_out_sorted_per_depth() {
    // every nesting kind sorts the same way
    for kind in [TrackKind::Thread, TrackKind::Stream, TrackKind::Dma] {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("p", GroupKind::Process);
        let t = b.add_track(g, "t", kind, "1");
        let k = b.intern("k");
        let args = b.add_args([(k, ArgValue::Int(7))]);
        slice(&mut b, t, 30, 5, "c");
        let n = b.intern("a");
        b.add_slice(t, 10, 5, n, StrId::EMPTY, args);
        slice(&mut b, t, 21, 2, "b.child");
        slice(&mut b, t, 20, 5, "b");
        let tr = finish_valid(b);
        assert_eq!(
            layout(&tr, 0),
            vec![row(0, 10, 5, "a"), row(0, 20, 5, "b"), row(0, 30, 5, "c"), row(1, 21, 2, "b.child")],
            "{kind:?}"
        );
        let c = &tr.tracks[0].slices;
        assert_eq!(c.depth_starts, vec![0, 3, 4]);
        // the arguments follow their slice through the sort
        assert_eq!(c.args, vec![args, ArgsId::NONE, ArgsId::NONE, ArgsId::NONE]);
        assert_eq!(tr.args_display(c.args[0]), vec![("k".to_string(), "7".to_string())]);
        assert_eq!(tr.tracks[0].layout, Layout::Nested);
        assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
    }
}

// ---- depths on a nesting track ----

#[test]
fn nested_slices_get_depths_by_containment() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "main", TrackKind::Thread, "1");
    // added innermost first
    slice(&mut b, t, 90, 10, "touching");
    slice(&mut b, t, 20, 10, "grandchild");
    slice(&mut b, t, 60, 30, "sibling");
    slice(&mut b, t, 10, 40, "child");
    slice(&mut b, t, 0, 100, "parent");
    let tr = finish_valid(b);
    assert_eq!(
        layout(&tr, 0),
        vec![
            row(0, 0, 100, "parent"),
            row(1, 10, 40, "child"),
            row(1, 60, 30, "sibling"),
            // begins where "sibling" ends: touching is not overlapping
            row(1, 90, 10, "touching"),
            row(2, 20, 10, "grandchild"),
        ]
    );
    assert_eq!(tr.tracks[0].slices.depth_starts, vec![0, 1, 4, 5]);
    assert_eq!(tr.tracks.len(), 1);
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
}

#[test]
fn child_sharing_its_parents_start_or_end_nests() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "main", TrackKind::Thread, "1");
    // same start: the longer one is the parent whatever the insertion order
    slice(&mut b, t, 0, 40, "shares start");
    slice(&mut b, t, 0, 100, "parent");
    // identical bounds: the one added first is the parent
    slice(&mut b, t, 0, 100, "same bounds");
    slice(&mut b, t, 60, 40, "shares end");
    let tr = finish_valid(b);
    assert_eq!(
        layout(&tr, 0),
        vec![
            row(0, 0, 100, "parent"),
            row(1, 0, 100, "same bounds"),
            row(2, 0, 40, "shares start"),
            row(2, 60, 40, "shares end"),
        ]
    );
    assert_eq!(tr.tracks[0].slices.depth_starts, vec![0, 1, 2, 4]);
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
}

#[test]
fn zero_duration_slices_nest_inside_the_slice_around_them() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "main", TrackKind::Thread, "1");
    slice(&mut b, t, 250, 0, "at end of r");
    slice(&mut b, t, 100, 0, "at start of q");
    slice(&mut b, t, 50, 0, "mid a");
    slice(&mut b, t, 0, 0, "at start of p");
    slice(&mut b, t, 200, 50, "r");
    slice(&mut b, t, 100, 10, "q");
    slice(&mut b, t, 50, 0, "mid b");
    slice(&mut b, t, 0, 100, "p");
    let tr = finish_valid(b);
    assert_eq!(
        layout(&tr, 0),
        vec![
            row(0, 0, 100, "p"),
            row(0, 100, 10, "q"),
            row(0, 200, 50, "r"),
            // [200, 250) has ended at 250: not inside r
            row(0, 250, 0, "at end of r"),
            // a longer slice sorts before a zero-length one at the same start and contains it
            row(1, 0, 0, "at start of p"),
            // two zero-length slices at one time share a depth, in insertion order
            row(1, 50, 0, "mid a"),
            row(1, 50, 0, "mid b"),
            // at p's end time: inside q = [100, 110), not inside p
            row(1, 100, 0, "at start of q"),
        ]
    );
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
}

// ---- overlap without nesting ----

#[test]
fn overlapping_slices_move_to_an_overlapping_track() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    let u = b.add_track(g, "U", TrackKind::Thread, "2");
    slice(&mut b, t, 12, 2, "d");
    slice(&mut b, t, 8, 12, "c");
    slice(&mut b, t, 5, 10, "b");
    slice(&mut b, t, 0, 10, "a");
    slice(&mut b, u, 0, 10, "x");
    slice(&mut b, u, 5, 10, "y");
    slice(&mut b, u, 20, 5, "z");
    let tr = finish_valid(b);

    // regular tracks keep their ids; spill tracks are appended in the order of their sources
    assert_eq!(tr.tracks.len(), 4);
    assert_eq!(layout(&tr, 0), vec![row(0, 0, 10, "a"), row(0, 12, 2, "d")]);
    assert_eq!(layout(&tr, 1), vec![row(0, 0, 10, "x"), row(0, 20, 5, "z")]);
    // spilled slices are laid out in lanes
    assert_eq!(layout(&tr, 2), vec![row(0, 5, 10, "b"), row(1, 8, 12, "c")]);
    assert_eq!(layout(&tr, 3), vec![row(0, 5, 10, "y")]);
    for (spill, src, name) in [(2, 0, "T (overlapping)"), (3, 1, "U (overlapping)")] {
        let s = &tr.tracks[spill];
        assert_eq!(tr.str(s.name), name);
        assert_eq!(s.kind, TrackKind::Overlap);
        assert_eq!(s.layout, Layout::Lanes);
        assert_eq!(s.group, g);
        assert_eq!(s.role, tr.tracks[src].role);
        assert_eq!(s.sort_index, tr.tracks[src].sort_index);
        assert_eq!(s.source_id, tr.tracks[src].source_id);
    }
    assert_eq!(tr.groups[g.idx()].tracks, vec![TrackId(0), TrackId(1), TrackId(2), TrackId(3)]);
    // nothing is lost
    assert_eq!(tr.slice_count(), 7);
    // counted once per track that spilled; the number of slices is in the example
    let w = &tr.warnings;
    assert_eq!(w.entries.len(), 1, "{w:?}");
    assert_eq!(w.count_of(WarningKind::OverlappingSlices), 2);
    assert_eq!(
        w.entries[0].example,
        "2 slice(s) on track 'T' overlap a neighbour without nesting; moved to an '(overlapping)' track"
    );
}

#[test]
fn domain_columns_follow_a_spilled_slice() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("d", GroupKind::Device);
    let t = b.add_track(g, "q", TrackKind::Dma, "0");
    slice(&mut b, t, 0, 10, "a");
    let h = slice(&mut b, t, 5, 10, "b");
    b.set_slice_domain(h, SliceDomain { instruction: 42, bytes: 4096, ..Default::default() });
    let tr = finish_valid(b);
    assert_eq!(layout(&tr, 1), vec![row(0, 5, 10, "b")]);
    assert_eq!(tr.tracks[1].slices.domain_of(0).instruction, 42);
    assert_eq!(tr.tracks[1].slices.domain_of(0).bytes, 4096);
    assert_eq!(tr.tracks[0].slices.domain_of(0).instruction, u32::MAX);
    assert_eq!(tr.tracks[1].role, TrackRole::DmaQueue);
}

#[test]
fn a_shared_domain_shape_sets_what_set_slice_domain_sets() {
    // the same slices through `set_slice_domain` and through one interned shape
    let build = |shaped: bool| {
        let mut b = TraceBuilder::new("test");
        let g = b.add_group("d", GroupKind::Device);
        let t = b.add_track(g, "e", TrackKind::Thread, "0");
        let u = b.add_track(g, "f", TrackKind::Thread, "1");
        let op = b.intern("MATMUL");
        let shared = SliceDomain { opcode: op, instruction: 7, flops: 99, ..Default::default() };
        let shape = b.domain_shape(t, &shared);
        let other = b.domain_shape(u, &shared);
        for k in 0..4u16 {
            let h = slice(&mut b, t, i64::from(k) * 10, 5, "m");
            if shaped {
                b.set_slice_domain_shaped(h, shape, u64::MAX, k, 3 * k);
            } else {
                b.set_slice_domain(h, SliceDomain { start_sub_ps: k, dur_sub_ps: 3 * k, ..shared });
            }
        }
        // another track's shape is ignored: the slice keeps no domain fields
        let h = slice(&mut b, t, 100, 5, "n");
        if shaped {
            b.set_slice_domain_shaped(h, other, 5, 1, 1);
        }
        finish_valid(b)
    };
    let (a, b) = (build(false), build(true));
    for i in 0..5 {
        assert_eq!(a.tracks[0].slices.domain_of(i), b.tracks[0].slices.domain_of(i), "slice {i}");
    }
    assert_eq!(b.tracks[0].slices.domain_of(2).flops, 99);
    assert_eq!(b.tracks[0].slices.domain_of(2).dur_sub_ps, 6);
    assert_eq!(b.tracks[0].slices.domain_of(4), SliceDomain::default());
}

// ---- lanes ----

#[test]
fn async_slices_take_the_first_free_lane() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "async", TrackKind::Async, "");
    slice(&mut b, t, 12, 1, "e");
    slice(&mut b, t, 10, 10, "d");
    slice(&mut b, t, 5, 7, "c");
    slice(&mut b, t, 2, 3, "b");
    slice(&mut b, t, 0, 3, "f");
    slice(&mut b, t, 0, 10, "a");
    let tr = finish_valid(b);
    assert_eq!(tr.tracks[0].layout, Layout::Lanes);
    // a: lane 0 (longest first at equal start); f: lane 1; b: lane 2 (lanes 0 and 1 busy, so
    // not nested under a); c at 5: lanes 1 and 2 are free again, lowest is 1; d at 10: lane 0;
    // e at 12: c has ended at 12, lane 1
    assert_eq!(
        layout(&tr, 0),
        vec![
            row(0, 0, 10, "a"),
            row(0, 10, 10, "d"),
            row(1, 0, 3, "f"),
            row(1, 5, 7, "c"),
            row(1, 12, 1, "e"),
            row(2, 2, 3, "b"),
        ]
    );
    assert_eq!(tr.tracks[0].slices.depth_starts, vec![0, 2, 5, 6]);
    assert_eq!(tr.tracks.len(), 1);
    assert!(tr.warnings.is_empty(), "{:?}", tr.warnings);
}

#[test]
fn zero_length_async_slices_occupy_a_lane_for_one_ns() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "async", TrackKind::Thread, "");
    // the layout follows a kind learnt late
    b.set_track_kind(t, TrackKind::Async);
    slice(&mut b, t, 6, 4, "after");
    slice(&mut b, t, 5, 0, "z1");
    slice(&mut b, t, 5, 0, "z2");
    let tr = finish_valid(b);
    assert_eq!(tr.tracks[0].layout, Layout::Lanes);
    assert_eq!(layout(&tr, 0), vec![row(0, 5, 0, "z1"), row(0, 6, 4, "after"), row(1, 5, 0, "z2")]);
}

#[test]
fn lanes_past_the_limit_move_to_an_overlapping_track() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "A", TrackKind::Async, "");
    let n = b.intern("s");
    // MAX_LANES + 1 slices all alive at once: exactly one lane too many
    for i in 0..=MAX_LANES as i64 {
        b.add_slice(t, i, 1_000_000, n, StrId::EMPTY, ArgsId::NONE);
    }
    let tr = finish_valid(b);
    assert_eq!(tr.tracks.len(), 2);
    let c = &tr.tracks[0].slices;
    assert_eq!(c.depth_count(), MAX_LANES);
    // lane k holds the k-th slice by start
    assert!((0..MAX_LANES).all(|d| c.depth_range(d) == (d..d + 1) && c.start_ns[d] == d as i64));
    let s = &tr.tracks[1];
    assert_eq!(tr.str(s.name), "A (overlapping)");
    assert_eq!(s.kind, TrackKind::Overlap);
    assert_eq!(s.slices.start_ns, vec![MAX_LANES as i64]);
    assert_eq!(tr.slice_count(), MAX_LANES + 1);
    assert_eq!(tr.warnings.count_of(WarningKind::LaneLimit), 1, "{:?}", tr.warnings);
    assert_eq!(
        tr.warnings.entries.iter().find(|w| w.kind == WarningKind::LaneLimit).unwrap().example,
        format!(
            "1 slice(s) on track 'A' need more than {MAX_LANES} lanes; moved to an '(overlapping)' track"
        )
    );
}

#[test]
fn lane_overflow_is_reported_once() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "A", TrackKind::Async, "");
    let n = b.intern("s");
    for i in 0..=MAX_LANES as i64 {
        b.add_slice(t, i, 1_000_000, n, StrId::EMPTY, ArgsId::NONE);
    }
    let tr = finish_valid(b);
    let kinds: Vec<(&str, u64)> = tr.warnings.entries.iter().map(|w| (w.kind.code(), w.count)).collect();
    assert_eq!(kinds, vec![("lane_limit", 1)]);
}

// ---- flows ----

#[test]
fn flows_bind_to_slices_by_handle_and_by_time() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    let v = b.add_track(g, "V", TrackKind::Thread, "2");
    let hs = slice(&mut b, t, 60, 30, "s");
    let hc = slice(&mut b, t, 10, 40, "c");
    let hp = slice(&mut b, t, 0, 100, "p");
    let hq = slice(&mut b, v, 200, 100, "q");
    let hr = slice(&mut b, v, 250, 100, "r"); // overlaps q: spilled to track 2
    let e = StrId::EMPTY;
    let names: Vec<StrId> = (0..8).map(|i| b.intern(&format!("f{i}"))).collect();
    // bound
    b.add_flow(FlowEnd::Slice(hc), FlowEnd::Slice(hq), names[0], e);
    b.add_flow(FlowEnd::Slice(hp), FlowEnd::Slice(hr), names[1], e);
    b.add_flow(
        FlowEnd::Enclosing { track: t, ts_ns: 20 },
        FlowEnd::Enclosing { track: t, ts_ns: 70 },
        names[2],
        e,
    );
    b.add_flow(
        FlowEnd::Enclosing { track: t, ts_ns: 5 },
        FlowEnd::EnclosingOrNext { track: v, ts_ns: 150 },
        names[3],
        e,
    );
    b.add_flow(
        FlowEnd::EnclosingOrNext { track: t, ts_ns: 95 },
        FlowEnd::Enclosing { track: v, ts_ns: 260 },
        names[4],
        e,
    );
    // unbound: no slice on T at 150, nothing on V at or after 400, a handle that was never added
    b.add_flow(FlowEnd::Enclosing { track: t, ts_ns: 150 }, FlowEnd::Slice(hs), names[5], e);
    b.add_flow(FlowEnd::Slice(hs), FlowEnd::EnclosingOrNext { track: v, ts_ns: 400 }, names[6], e);
    b.add_flow(FlowEnd::Slice(SliceHandle { track: t, index: 99 }), FlowEnd::Slice(hs), names[7], e);
    let tr = finish_valid(b);

    assert_eq!(tr.tracks.len(), 3);
    let at = |track: u32, name: &str| SliceRef {
        track: TrackId(track),
        index: index_of(&tr, track as usize, name),
    };
    let (p, c, s) = (at(0, "p"), at(0, "c"), at(0, "s"));
    let (q, r) = (at(1, "q"), at(2, "r"));
    let got: Vec<(&str, SliceRef, SliceRef)> =
        tr.flows.iter().map(|f| (tr.str(f.name), f.from, f.to)).collect();
    assert_eq!(
        got,
        vec![
            ("f0", c, q),
            // a handle to a spilled slice follows it to the overlapping track
            ("f1", p, r),
            // the deepest enclosing slice
            ("f2", c, s),
            ("f3", p, q),
            // enclosing only looks at the track named (r, on the spill track, also holds 260)
            ("f4", p, q),
        ]
    );
    assert_eq!(tr.warnings.count_of(WarningKind::FlowUnbound), 3, "{:?}", tr.warnings);
    assert_eq!(tr.flows_of(q).count(), 3);
}

// ---- instants and counters ----

#[test]
fn instants_and_counter_samples_are_sorted() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    for (ts, name) in [(30, "i30"), (10, "i10"), (20, "i20"), (-5, "i-5")] {
        let n = b.intern(name);
        b.add_instant(t, ts, n, StrId::EMPTY, ArgsId::NONE);
    }
    let c = b.add_counter(g, "mem", "bytes");
    for (ts, v) in [(20, 1.0), (10, 2.0), (20, 3.0), (10, 4.0), (15, 5.0)] {
        b.add_counter_sample(c, ts, v);
    }
    // already sorted, with a repeated time: untouched
    let d = b.add_counter(g, "load", "%");
    for (ts, v) in [(5, 1.0), (5, 0.0), (6, 2.0)] {
        b.add_counter_sample(d, ts, v);
    }
    let tr = finish_valid(b);

    let ins = &tr.tracks[0].instants;
    assert_eq!(ins.ts_ns, vec![-5, 10, 20, 30]);
    let names: Vec<&str> = ins.name.iter().map(|&n| tr.str(n)).collect();
    assert_eq!(names, vec!["i-5", "i10", "i20", "i30"]);
    // samples at one time keep their insertion order (the sort is stable)
    assert_eq!(tr.counters[0].ts_ns, vec![10, 10, 15, 20, 20]);
    assert_eq!(tr.counters[0].value, vec![2.0, 4.0, 5.0, 1.0, 3.0]);
    assert_eq!(tr.counters[1].ts_ns, vec![5, 5, 6]);
    assert_eq!(tr.counters[1].value, vec![1.0, 0.0, 2.0]);
    assert_eq!(tr.instant_count(), 4);
    assert_eq!(tr.counter_sample_count(), 8);
}

// ---- time bounds ----

#[test]
fn trace_bounds_cover_slices_instants_and_counters() {
    // an instant before and a counter sample after the slices
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    slice(&mut b, t, 100, 50, "s");
    b.add_instant(t, 50, StrId::EMPTY, StrId::EMPTY, ArgsId::NONE);
    let c = b.add_counter(g, "c", "");
    b.add_counter_sample(c, 300, 1.0);
    b.add_counter_sample(c, 120, 1.0);
    let tr = finish_valid(b);
    assert_eq!((tr.start_ns, tr.end_ns), (50, 300));
    assert_eq!(tr.duration_ns(), 250);

    // slices around everything else; the longest end is on a deeper, later-added slice
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    let a = b.add_track(g, "A", TrackKind::Async, "");
    slice(&mut b, t, -20, 30, "neg");
    slice(&mut b, a, 0, 500, "lane0");
    slice(&mut b, a, 10, 990, "lane1");
    b.add_instant(t, 500, StrId::EMPTY, StrId::EMPTY, ArgsId::NONE);
    let c = b.add_counter(g, "c", "");
    b.add_counter_sample(c, 10, 1.0);
    let tr = finish_valid(b);
    assert_eq!((tr.start_ns, tr.end_ns), (-20, 1000));

    // a spilled slice counts too
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    slice(&mut b, t, 0, 10, "a");
    slice(&mut b, t, 5, 35, "b");
    let tr = finish_valid(b);
    assert_eq!(tr.tracks.len(), 2);
    assert_eq!((tr.start_ns, tr.end_ns), (0, 40));
}

#[test]
fn an_empty_builder_gives_an_empty_valid_trace() {
    let tr = finish_valid(TraceBuilder::new("empty"));
    assert_eq!(tr.format, "empty");
    assert!(tr.groups.is_empty() && tr.tracks.is_empty() && tr.counters.is_empty() && tr.flows.is_empty());
    assert_eq!((tr.start_ns, tr.end_ns), (0, 0));
    assert_eq!(tr.slice_count(), 0);
    assert!(tr.warnings.is_empty());

    // groups, tracks and counters without events
    let mut b = TraceBuilder::new("empty");
    let g = b.add_group("p", GroupKind::Process);
    b.add_track(g, "T", TrackKind::Thread, "1");
    b.add_track(g, "A", TrackKind::Async, "2");
    b.add_counter(g, "c", "");
    let tr = finish_valid(b);
    assert_eq!(tr.tracks.len(), 2);
    assert!(tr.tracks.iter().all(|t| t.slices.is_empty() && t.slices.depth_count() == 0));
    assert_eq!((tr.start_ns, tr.end_ns), (0, 0));
    assert!(tr.warnings.is_empty());
}

// ---- negative durations ----

#[test]
fn negative_durations_are_clamped_and_counted() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    slice(&mut b, t, 300, 10, "ok");
    slice(&mut b, t, 100, -5, "neg");
    slice(&mut b, t, 200, i64::MIN, "min");
    let tr = finish_valid(b);
    assert_eq!(layout(&tr, 0), vec![row(0, 100, 0, "neg"), row(0, 200, 0, "min"), row(0, 300, 10, "ok")]);
    assert_eq!(tr.warnings.count_of(WarningKind::NegativeDuration), 2);
    assert_eq!(tr.warnings.entries[0].example, "slice at 100 ns has duration -5 ns; clamped to 0");
    assert_eq!((tr.start_ns, tr.end_ns), (100, 310));
}

// ---- LOD ----

#[test]
fn lod_index_merges_narrow_slices_at_a_coarse_zoom() {
    let mut b = TraceBuilder::new("test");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "T", TrackKind::Thread, "1");
    let n = b.intern("child");
    // added backwards: 1000 children of 5 ns (one of 8 ns) every 10 ns under one parent
    for i in (0..1000i64).rev() {
        let dur = if i == 500 { 8 } else { 5 };
        b.add_slice(t, i * 10, dur, n, StrId::EMPTY, ArgsId::NONE);
    }
    slice(&mut b, t, 0, 10_000, "parent");
    let tr = finish_valid(b);
    let track = &tr.tracks[0];
    assert_eq!(track.slices.depth_starts, vec![0, 1, 1001]);
    let mut out = Vec::new();
    // 100 ns per pixel: the parent is drawn on its own, the children as one block
    lod::query(&track.slices, &track.lod, 0, 0, 10_000, 100.0, 1.0, &mut out);
    assert_eq!(out, vec![LodItem::Slice(0)]);
    out.clear();
    lod::query(&track.slices, &track.lod, 1, 0, 10_000, 100.0, 1.0, &mut out);
    assert_eq!(out, vec![LodItem::Merged { first: 1, end: 1001, start_ns: 0, end_ns: 9_995, longest: 501 }]);
    // 1 ns per pixel over [2000, 3000): every child there on its own
    out.clear();
    lod::query(&track.slices, &track.lod, 1, 2_000, 3_000, 1.0, 1.0, &mut out);
    let want: Vec<LodItem> = (201..301).map(LodItem::Slice).collect();
    assert_eq!(out, want);
}

// ---- ordering metadata ----

#[test]
fn sort_indexes_survive_finish_and_order_groups() {
    let mut b = TraceBuilder::new("test");
    let g0 = b.add_group("g0", GroupKind::Process);
    let g1 = b.add_group("g1", GroupKind::Device);
    let g2 = b.add_group("g2", GroupKind::Process);
    let g3 = b.add_group("g3", GroupKind::Other);
    b.set_group_sort(g0, 5);
    b.set_group_sort(g1, -1);
    b.set_group_sort(g2, 5);
    let x = b.add_track(g0, "x", TrackKind::Thread, "1");
    let y = b.add_track(g0, "y", TrackKind::Thread, "2");
    b.add_track(g0, "z", TrackKind::Thread, "3");
    b.set_track_sort(y, 10);
    b.add_counter(g0, "c0", "");
    b.add_counter(g0, "c1", "");
    let w = b.add_track(g3, "w", TrackKind::Stream, "0");
    slice(&mut b, x, 0, 10, "a");
    slice(&mut b, x, 5, 10, "b"); // spills: track 4, "x (overlapping)"
    slice(&mut b, w, 0, 1, "w0");
    let tr = finish_valid(b);

    let sorts: Vec<i64> = tr.groups.iter().map(|g| g.sort_index).collect();
    assert_eq!(sorts, vec![5, -1, 5, 3]);
    assert_eq!(tr.ordered_groups(), vec![g1, g3, g0, g2]);
    let kinds: Vec<GroupKind> = tr.groups.iter().map(|g| g.kind).collect();
    assert_eq!(kinds, vec![GroupKind::Process, GroupKind::Device, GroupKind::Process, GroupKind::Other]);

    // tracks: (name, sort_index) by id; the spill track takes its source's sort index
    let tracks: Vec<(&str, i64)> = tr.tracks.iter().map(|t| (tr.str(t.name), t.sort_index)).collect();
    assert_eq!(tracks, vec![("x", 0), ("y", 10), ("z", 2), ("w", 0), ("x (overlapping)", 0)]);
    assert_eq!(tr.groups[g0.idx()].tracks, vec![TrackId(0), TrackId(1), TrackId(2), TrackId(4)]);
    assert_eq!(tr.groups[g3.idx()].tracks, vec![TrackId(3)]);
    // display order within a group, by (sort_index, id): the spill track right after its source
    let mut order = tr.groups[g0.idx()].tracks.clone();
    order.sort_by_key(|&t| (tr.track(t).sort_index, t.0));
    assert_eq!(order, vec![TrackId(0), TrackId(4), TrackId(2), TrackId(1)]);
    assert_eq!(tr.track_label(TrackId(4)), "g0 / x (overlapping)");

    let counters: Vec<(&str, i64)> = tr.counters.iter().map(|c| (tr.str(c.name), c.sort_index)).collect();
    assert_eq!(counters, vec![("c0", 0), ("c1", 1)]);
    assert_eq!(tr.groups[g0.idx()].counters.len(), 2);
}

/// The builder charges what it is given to the import's budget (issue 37 §2): past it, it drops
/// slices, flows, args and samples (inert handles, no panic), keeps the first error for the
/// registry, and still finishes.
#[test]
fn over_its_budget_the_builder_drops_what_it_is_given_and_keeps_the_error() {
    use loupe_core::limits::{Budget, Item};
    let mut b = TraceBuilder::new("t");
    let g = b.add_group("p", GroupKind::Process);
    let t = b.add_track(g, "t", TrackKind::Thread, "1");
    let before = b.budget().used();
    b.set_budget(Budget::with_limit(before + 7 * Item::Slices.cost() + 10));
    let handles: Vec<SliceHandle> = (0..10).map(|i| slice(&mut b, t, i * 10, 5, "a")).collect();
    assert!(b.over_budget());
    assert_eq!(b.slice_count(), 7, "the eighth slice did not fit");
    let e = b.budget_error().expect("kept").to_string();
    assert!(e.starts_with("8 slices exceed the limit of"), "{e}");
    let k = b.intern("k");
    assert_eq!(b.add_args([(k, ArgValue::Int(1))]), ArgsId::NONE);
    b.add_flow(FlowEnd::Slice(handles[0]), FlowEnd::Slice(handles[9]), k, StrId::EMPTY);
    b.set_slice_domain(handles[9], SliceDomain::default());
    assert!(b.charge(Item::Events, 1).is_err(), "importers' charges fail too");
    let trace = b.finish();
    assert_eq!(trace.slice_count(), 7);
    assert!(trace.flows.is_empty());
}
