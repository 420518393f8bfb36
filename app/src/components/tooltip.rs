//! The hover tooltip. Updated imperatively by the timeline controller on pointer moves (hover is
//! outside the reactive graph); built from text nodes only, so names from files are never parsed
//! as HTML.

use loupe_core::model::SliceRef;
use web_sys::HtmlElement;

use crate::canvas::hit_test::HitTarget;
use crate::clock::{fmt_offset, ClockShift};
use crate::describe;
use crate::dom::el;
use crate::state::TraceData;

/// Show `tip` beside the pointer at (`x_px`, `y_px`) in an area of `area_w_px` × `area_h_px` (its
/// offset parent's CSS px), placed by [`loupe_core::viewport::tooltip_origin`] from its measured size.
pub fn show_at(tip: &HtmlElement, x_px: f64, y_px: f64, area_w_px: f64, area_h_px: f64) {
    let style = tip.style();
    let _ = style.set_property("display", "block");
    let size = (f64::from(tip.offset_width()), f64::from(tip.offset_height()));
    let (left, top) = loupe_core::viewport::tooltip_origin((x_px, y_px), size, (area_w_px, area_h_px));
    let _ = style.set_property("left", &format!("{left}px"));
    let _ = style.set_property("top", &format!("{top}px"));
}

/// Hide `tip`.
pub fn hide(tip: &HtmlElement) {
    let _ = tip.style().set_property("display", "none");
}

pub fn row(parent: &HtmlElement, key: &str, value: &str) {
    if let Some(r) = el("div", "tt-row", "") {
        if let (Some(k), Some(v)) = (el("span", "tt-key", key), el("span", "tt-val", value)) {
            let _ = r.append_child(&k);
            let _ = r.append_child(&v);
        }
        let _ = parent.append_child(&r);
    }
}

/// Replace the tooltip's content with a description of `target` (`t_ns`: time under the pointer,
/// on the view's clock). Times are shown on the view's clock: a rank's recorded times plus its
/// alignment offset (`clock`), with the offset on a row of its own when it is not 0.
pub fn fill(tip: &HtmlElement, data: &TraceData, clock: &ClockShift, target: &HitTarget, t_ns: i64) {
    tip.set_text_content(None);
    let trace = &data.trace;
    let offset_row = |o: i64| {
        if o != 0 {
            row(tip, "clock offset", &format!("{} ({})", fmt_offset(o), clock.align.label()));
        }
    };
    let title = |text: &str| {
        if let Some(t) = el("div", "tt-title", text) {
            let _ = tip.append_child(&t);
        }
    };
    match *target {
        HitTarget::Slice(s) => {
            let cols = &trace.track(s.track).slices;
            let i = s.index as usize;
            title(&describe::slice_name(trace, s));
            row(tip, "track", &trace.track_label(s.track));
            let o = clock.track(s.track);
            row(tip, "start", &describe::time_label(trace, cols.start_ns[i] + o));
            offset_row(o);
            row(tip, "duration", &describe::duration_label(cols.dur_ns.at(i)));
            let cat = trace.str(cols.category[i]);
            if !cat.is_empty() {
                row(tip, "category", cat);
            }
            if let Some(path) = describe::hierarchy_label(trace, s.track, i) {
                row(tip, "hierarchy", &path);
            }
        }
        HitTarget::Merged { track, first, end, start_ns, end_ns, longest, .. } => {
            title(&format!("{} slices (merged at this zoom)", end - first));
            row(tip, "track", &trace.track_label(track));
            row(
                tip,
                "window",
                &format!(
                    "{} – {}",
                    describe::time_label(trace, start_ns + clock.track(track)),
                    describe::time_label(trace, end_ns + clock.track(track))
                ),
            );
            offset_row(clock.track(track));
            row(tip, "span", &describe::duration_label(end_ns - start_ns));
            let cols = &trace.track(track).slices;
            row(
                tip,
                "longest",
                &format!(
                    "{} ({})",
                    describe::slice_name(trace, SliceRef { track, index: longest }),
                    describe::duration_label(cols.dur_ns.at(longest as usize))
                ),
            );
            if let Some(path) = describe::hierarchy_label(trace, track, first as usize) {
                row(tip, "hierarchy", &path);
            }
        }
        HitTarget::Instant { track, index } => {
            let inst = &trace.track(track).instants;
            let i = index as usize;
            title(trace.str(inst.name[i]));
            row(tip, "track", &trace.track_label(track));
            row(tip, "time", &describe::time_label(trace, inst.ts_ns[i] + clock.track(track)));
            offset_row(clock.track(track));
            row(tip, "kind", "instant");
        }
        HitTarget::Counter(c) => {
            let ci = c.idx();
            title(&describe::counter_label(trace, ci));
            let ctr = &trace.counters[ci];
            let o = clock.counter(ci);
            match describe::counter_sample_at(trace, ci, t_ns - o) {
                Some(k) => {
                    row(
                        tip,
                        "value",
                        format!("{} {}", crate::fmt::fmt_value(ctr.value[k]), trace.str(ctr.unit)).trim_end(),
                    );
                    row(tip, "since", &describe::time_label(trace, ctr.ts_ns[k] + o));
                    offset_row(o);
                }
                None => row(tip, "value", "no sample yet"),
            }
        }
    }
}
