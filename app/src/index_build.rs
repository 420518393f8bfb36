//! The page's indexes over a model ([`TraceData::indexes`], a [`PageIndexes`]: string colours, window index, totals
//! by name, device summary, counters' level of detail, colour index, busy range, the default
//! legend), built one bounded step at a time: [`TraceData::new`] at once, [`TraceData::build`]
//! between frames for the loader, and [`TraceData::apply_legend`]. Apart from `state.rs` because
//! it uses the canvas's colouring ([`crate::canvas::colour`]), which reads `TraceData`.

use loupe_core::view::palette_index;
use loupe_core::Trace;

use crate::canvas::colour;
use crate::canvas::colour_index::{ColourIndex, DurationRange, LegendEntry};
use crate::page_indexes::PageIndexes;
use crate::state::{ColourBy, TraceData};

/// Slices added up by name per step of [`IndexBuild`] (≈ 2–4 ms in wasm).
const NAMES_PER_STEP: usize = 100_000;
/// Slices (then spans of the unions) of the device summary per step of [`IndexBuild`].
const DEVICE_SUMMARY_PER_STEP: usize = 100_000;
/// Slice durations scanned for the colour index's heat scale per step of [`IndexBuild`].
const DURATIONS_PER_STEP: usize = 1 << 20;
/// Counter samples folded into a counter's level of detail per step of [`IndexBuild`].
const COUNTER_VALUES_PER_STEP: usize = 1 << 20;
/// Slices added to the default legend per step of [`TraceData::build`].
const LEGEND_SLICES_PER_STEP: usize = 50_000;

/// The page's indexes over a model, built one bounded step at a time: a block of string colours,
/// one track of the window index, a block of the totals by name, a block of the device summary,
/// a block of a counter's level of detail, the colour index, the all-zero counters, one run of the busy range's samples, one run of their sort, one merge of two runs, then the rest. [`TraceData::new`] runs every step
/// at once; [`TraceData::build`] gives the browser a turn between them.
struct IndexBuild {
    color_of_str: Vec<u8>,
    window: loupe_core::analysis::summary::WindowIndexBuilder,
    colours: Option<ColourIndex>,
    zero_counters: Option<Vec<bool>>,
    busy_sampler: Option<loupe_core::analysis::busy::RunSampler>,
    busy_runs: Option<Vec<Vec<(i64, i64)>>>,
    busy_sorted: usize,
    /// the whole trace's totals by name (the Summary widget), added up in steps
    names: Option<loupe_core::query::NameAggregation>,
    names_done: bool,
    device: Option<loupe_core::analysis::device_summary::DeviceSummaryBuilder>,
    device_done: bool,
    counter_lods: Vec<loupe_core::counter_lod::CounterLod>,
    /// the next counter's level of detail, built in steps
    counter_lod: Option<loupe_core::counter_lod::CounterLodBuilder>,
    /// the colour index's duration range, scanned in steps
    durations: Option<DurationRange>,
}

impl IndexBuild {
    fn new() -> IndexBuild {
        IndexBuild {
            color_of_str: Vec::new(),
            window: Default::default(),
            colours: None,
            zero_counters: None,
            busy_sampler: None,
            busy_runs: None,
            busy_sorted: 0,
            names: None,
            names_done: false,
            device: None,
            device_done: false,
            counter_lods: Vec::new(),
            counter_lod: None,
            durations: None,
        }
    }
    /// Do the next piece of work; `false` when everything is built.
    fn step(&mut self, trace: &Trace) -> bool {
        use loupe_core::analysis::busy;
        let n = trace.strings.len();
        if self.color_of_str.len() < n {
            let from = self.color_of_str.len();
            let end = (from + 8192).min(n);
            self.color_of_str.extend(
                (from..end).map(|i| palette_index(trace.strings.get(loupe_core::StrId(i as u32))) as u8),
            );
        } else if self.window.add_next(trace) {
        } else if !self.names_done {
            let names = self
                .names
                .get_or_insert_with(|| loupe_core::query::NameAggregation::new(trace.start_ns, trace.end_ns));
            self.names_done = !names.add_next(trace, NAMES_PER_STEP);
        } else if !self.device_done {
            let device = self.device.get_or_insert_with(|| {
                loupe_core::analysis::device_summary::DeviceSummaryBuilder::new(trace)
            });
            self.device_done = !device.add_next(trace, DEVICE_SUMMARY_PER_STEP);
        } else if let Some(c) = trace.counters.get(self.counter_lods.len()) {
            let b = self.counter_lod.get_or_insert_with(Default::default);
            if !b.add_next(&c.value, COUNTER_VALUES_PER_STEP) {
                self.counter_lods.push(self.counter_lod.take().unwrap_or_default().finish());
            }
        } else if self.colours.is_none() {
            let d = self.durations.get_or_insert_with(Default::default);
            if !d.add_next(trace, DURATIONS_PER_STEP) {
                let d = self.durations.take().unwrap_or_default();
                self.colours = Some(ColourIndex::with_durations(trace, d));
            }
        } else if self.zero_counters.is_none() {
            self.zero_counters = Some(loupe_core::rows::zero_counters(trace));
        } else if self.busy_runs.is_none() {
            // a run per step (the whole sampling at once was a 50–60 ms task on 9.5 M slices)
            let s = self.busy_sampler.get_or_insert_with(|| busy::RunSampler::new(trace));
            if !s.next_run(trace) {
                self.busy_runs = self.busy_sampler.take().map(busy::RunSampler::finish);
            }
        } else if let Some(run) = self.busy_runs.as_mut().and_then(|r| r.get_mut(self.busy_sorted)) {
            busy::sort_run(run);
            self.busy_sorted += 1;
        } else if let Some(runs) = self.busy_runs.as_mut().filter(|r| r.len() > 1) {
            // the sorted runs merged two at a time (at once it was much of a 64 ms task at 9.5 M slices)
            busy::merge_step(runs);
        } else {
            return false;
        }
        true
    }
    fn finish(self, trace: Trace, source_label: String, is_demo: bool, load_ms: f64) -> TraceData {
        use loupe_core::analysis::busy;
        let busy = busy::busy_of_sorted(&busy::merge_runs(self.busy_runs.unwrap_or_default()));
        let device_summary = self
            .device
            .unwrap_or_else(|| loupe_core::analysis::device_summary::DeviceSummaryBuilder::new(&trace))
            .finish(&trace)
            // a capture cut short: the runtime's totals describe events that are not there
            .filter(|_| loupe_core::analysis::evidence::device_summary_withheld(&trace).is_none());
        let fingerprint = loupe_core::analysis::annotations::fingerprint(&trace);
        let heap_bytes = trace.heap_bytes();
        let indexes = PageIndexes {
            color_of_str: self.color_of_str.into_iter().map(std::sync::atomic::AtomicU8::new).collect(),
            legend_moved: Default::default(),
            window_index: self.window.finish(),
            top_names: self
                .names
                .unwrap_or_else(|| loupe_core::query::NameAggregation::new(trace.start_ns, trace.end_ns))
                .finish(&trace),
            device_summary,
            colours: self.colours.unwrap_or_else(|| ColourIndex::build(&trace)),
            auto_legend: None,
            zero_counters: self.zero_counters.unwrap_or_else(|| loupe_core::rows::zero_counters(&trace)),
            counter_lods: {
                let mut v = self.counter_lods;
                v.extend(
                    trace.counters[v.len().min(trace.counters.len())..]
                        .iter()
                        .map(|c| loupe_core::counter_lod::CounterLod::build(&c.value)),
                );
                v
            },
            busy,
        };
        TraceData {
            trace,
            indexes,
            source_label,
            is_demo,
            load_ms,
            from_cache: false,
            fingerprint,
            heap_bytes,
            files: send_wrapper::SendWrapper::new(Vec::new()),
        }
    }
}

impl TraceData {
    pub fn new(trace: Trace, source_label: String, is_demo: bool, load_ms: f64) -> TraceData {
        let mut ib = IndexBuild::new();
        while ib.step(&trace) {}
        let mut data = ib.finish(trace, source_label, is_demo, load_ms);
        let legend = colour::legend(&data, ColourBy::Auto, colour::LEGEND_TOP);
        data.apply_legend(&legend);
        data.indexes.auto_legend = Some(legend);
        data
    }
    /// [`TraceData::new`] for the page's loader: the same indexes, built in steps of a few
    /// milliseconds ([`IndexBuild`]) with the browser given a turn between them, so installing a
    /// big profile never freezes the page. `None` when `cancelled()` turns true meanwhile.
    pub async fn build(
        trace: Trace,
        source_label: String,
        load_ms: f64,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<TraceData> {
        use crate::platform::{now_ms, record_stage};
        use crate::platform::{yield_now, SLICE_MS};
        let t_all = now_ms();
        let (mut since, mut longest, mut busy) = (t_all, 0f64, 0f64);
        // after a step: give the browser a turn once SLICE_MS of work has piled up; false when
        // the load was cancelled meanwhile
        let mut turn = async || {
            let t = now_ms();
            if t - since >= SLICE_MS {
                longest = longest.max(t - since);
                busy += t - since;
                yield_now().await;
                if cancelled() {
                    return false;
                }
                since = now_ms();
            }
            true
        };
        let mut ib = IndexBuild::new();
        while ib.step(&trace) {
            if !turn().await {
                return None;
            }
        }
        let mut data = ib.finish(trace, source_label, false, load_ms);
        // the default colouring's legend: one pass over every slice, in steps too
        let mut legend = colour::LegendBuild::new(ColourBy::Auto);
        while legend.add_next(&data, LEGEND_SLICES_PER_STEP) {
            if !turn().await {
                return None;
            }
        }
        let legend = legend.finish(&data, colour::LEGEND_TOP);
        data.apply_legend(&legend);
        data.indexes.auto_legend = Some(legend);
        let last_ms = now_ms() - since;
        longest = longest.max(last_ms);
        busy += last_ms;
        record_stage("indexMs", now_ms() - t_all);
        // the steps' own time: the rest of indexMs went to the browser (frames, input, idle)
        record_stage("indexBusyMs", busy);
        record_stage("longestIndexSliceMs", longest);
        // install (every widget's first render, then the first paint) right after a frame, not
        // on top of the last steps' work
        crate::platform::next_frame().await;
        (!cancelled()).then_some(data)
    }
    /// Paint the names of `legend` in the colours it shows ([`LegendEntry::palette`], distinct
    /// within the legend), and every name the previous legend moved in its own colour again.
    /// The timeline reads the same table, so what the legend says is what is drawn.
    pub fn apply_legend(&self, legend: &[LegendEntry]) {
        use std::sync::atomic::Ordering::Relaxed;
        let Ok(mut moved) = self.indexes.legend_moved.lock() else { return };
        for s in moved.drain(..) {
            if let Some(c) = self.indexes.color_of_str.get(s.0 as usize) {
                c.store(palette_index(self.trace.str(s)) as u8, Relaxed);
            }
        }
        for e in legend {
            if let Some(s) = colour::legend_string(self, e.key) {
                let Some(c) = self.indexes.color_of_str.get(s.0 as usize) else { continue };
                if c.load(Relaxed) as usize != e.palette && e.palette < loupe_core::view::PALETTE.len() {
                    c.store(e.palette as u8, Relaxed);
                    moved.push(s);
                }
            }
        }
    }
}
