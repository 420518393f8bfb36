//! Collectives: the collective kernels of a multi-rank profile matched across ranks
//! (`loupe_core::analysis::ranks`: process group, name, occurrence index), one row per
//! instance sortable by arrival skew or duration (click → the instance's kernel on every rank
//! outlined, the rest dimmed), a summary per collective name, and the straggler ranking (how
//! often a rank arrives last, its mean lateness), on the clock alignment chosen in the timeline
//! (`AppState::align`; the report is `crate::clock::report`'s, realigned). Computed only while
//! the tab is shown.

use leptos::prelude::*;
use loupe_core::analysis::measures::{COLLECTIVE_ALGBW, COLLECTIVE_SKEW, MEAN_LATENESS};
use loupe_core::analysis::ranks::{Align, Collective};
use loupe_core::time::format_duration_ns;

use super::deferred::{deferred, shown, spinner, Deferred};
use super::fmt_bytes;
use crate::search_runner::show_events;
use crate::state::use_app_state;
use crate::workbench::layout::WidgetKind;

/// Instances listed (the first by the chosen order).
const LISTED: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Time,
    Skew,
    Duration,
}

/// Per collective name: instances, summed and largest skew, summed median duration.
fn by_name(cs: &[Collective]) -> Vec<(String, usize, i64, i64, i64)> {
    let mut out: Vec<(String, usize, i64, i64, i64)> = Vec::new();
    for c in cs {
        match out.iter_mut().find(|x| x.0 == c.name) {
            Some(x) => {
                x.1 += 1;
                x.2 += c.start_skew_ns;
                x.3 = x.3.max(c.start_skew_ns);
                x.4 += c.dur_median_ns;
            }
            None => out.push((c.name.clone(), 1, c.start_skew_ns, c.start_skew_ns, c.dur_median_ns)),
        }
    }
    out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    out
}

#[component]
pub fn CollectivesWidget() -> impl IntoView {
    let state = use_app_state();
    let order = RwSignal::new(Order::Skew);
    let Deferred { result, pending, compute_ms } = deferred(
        shown(WidgetKind::Collectives),
        move || (state.generation.get(), state.clock.align.get()),
        move |&(g, align): &(u64, Align)| {
            let mut r = crate::clock::report(g, &state.data().trace).as_ref().clone()?;
            // an alignment some rank cannot take leaves the clocks as recorded (the timeline says why)
            let _ = r.realign(align);
            Ok::<_, String>(r)
        },
    );
    let show = move |c: &Collective| {
        let d = state.data();
        let mut per_track: Vec<Vec<u32>> = vec![Vec::new(); d.trace.tracks.len()];
        for a in &c.arrivals {
            if let Some(v) = per_track.get_mut(a.slice.track.idx()) {
                v.push(a.slice.index);
            }
        }
        show_events(state, &format!("{} #{} on {} ranks", c.name, c.seq, c.arrivals.len()), per_track, true);
    };

    let body = move || {
        let Some(r) = result.get() else {
            return if pending.get() {
                spinner("Matching collectives across ranks…", "coll-computing")
            } else {
                view! { <p class="empty-state">"Collectives are matched when this tab is shown."</p> }
                    .into_any()
            };
        };
        let rep = match r.as_ref() {
            Ok(rep) => rep.clone(),
            Err(e) => {
                return view! { <p class="empty-state" data-testid="coll-error" role="status">{format!("No collectives: {e}.")}</p> }
                    .into_any()
            }
        };
        if rep.collectives.is_empty() {
            return view! { <p class="empty-state" data-testid="coll-none" role="status">"No communication kernels in this profile."</p> }
                .into_any();
        }
        let names = by_name(&rep.collectives)
            .into_iter()
            .map(|(name, n, skew, max_skew, med)| {
                view! {
                    <tr>
                        <th title=name.clone()>{name.clone()}</th>
                        <td class="num">{n}</td>
                        <td class="num">{format_duration_ns(skew / n as i64)}</td>
                        <td class="num">{format_duration_ns(max_skew)}</td>
                        <td class="num">{format_duration_ns(med / n as i64)}</td>
                    </tr>
                }
            })
            .collect_view();
        let stragglers = rep
            .stragglers
            .iter()
            .map(|s| {
                view! {
                    <tr data-rank=s.rank.to_string()>
                        <th>{format!("rank {}", s.rank)}</th>
                        <td class="num" data-testid="coll-last-count">{s.last_count}</td>
                        <td class="num">{s.instances}</td>
                        <td class="num" data-ns=s.mean_lateness_ns.to_string()>{format_duration_ns(s.mean_lateness_ns)}</td>
                        <td class="num">{format_duration_ns(s.max_lateness_ns)}</td>
                    </tr>
                }
            })
            .collect_view();
        let mismatches = rep
            .mismatches
            .iter()
            .map(|m| {
                let counts: Vec<String> = m.counts.iter().map(|(r, n)| format!("rank {r}: {n}")).collect();
                view! { <li>{format!("{} — {}", m.name, counts.join(", "))}</li> }
            })
            .collect_view();
        let has_mismatch = !rep.mismatches.is_empty();
        let total = rep.collectives.len();
        let align_label = rep.align.label();
        let ranks = rep.ranks.len();
        let rows = move || {
            let mut cs: Vec<Collective> = rep.collectives.clone();
            match order.get() {
                Order::Time => {}
                Order::Skew => cs.sort_by_key(|c| std::cmp::Reverse(c.start_skew_ns)),
                Order::Duration => cs.sort_by_key(|c| std::cmp::Reverse(c.dur_max_ns)),
            }
            cs.truncate(LISTED);
            cs.into_iter()
                .map(|c| {
                    let label = c.name.clone();
                    let missing = if c.missing.is_empty() { String::new() } else { format!("missing on {:?}", c.missing) };
                    let bytes = c.bytes.map(fmt_bytes).unwrap_or_default();
                    let bw = c.algbw_gbps.map(|b| format!("{b:.2} GB/s")).unwrap_or_default();
                    let skew = c.start_skew_ns;
                    let cc = c.clone();
                    view! {
                        <tr tabindex="0" class="clickable" data-seq=c.seq.to_string() data-skew-ns=skew.to_string()
                            on:click=move |_| show(&cc)>
                            <th title=label.clone()>{label.clone()}</th>
                            <td class="num">{c.seq}</td>
                            <td class="num" title=missing.clone()>{format!("{}{}", c.ranks.len(), if missing.is_empty() { "" } else { "*" })}</td>
                            <td class="num">{format_duration_ns(skew)}</td>
                            <td class="num">{format_duration_ns(c.dur_min_ns)}</td>
                            <td class="num">{format_duration_ns(c.dur_median_ns)}</td>
                            <td class="num">{format_duration_ns(c.dur_max_ns)}</td>
                            <td class="num">{c.last_rank.map(|r| r.to_string()).unwrap_or_else(|| "–".into())}</td>
                            <td class="num">{bytes}</td>
                            <td class="num">{bw}</td>
                        </tr>
                    }
                })
                .collect_view()
        };
        let pick = move |o: Order| move |_| order.set(o);
        view! {
            <p class="hint" data-testid="coll-count" data-count=total.to_string()>
                {format!("{total} collective instances over {ranks} ranks (clocks: {}). Click an instance: its kernel on every rank.", align_label)}
            </p>
            <h4>"Stragglers"</h4>
            <table class="grid analysis-table" data-testid="coll-stragglers">
                <thead><tr><th>"rank"</th><th class="num">"arrived last"</th><th class="num">"instances"</th>
                    <th class="num" title=MEAN_LATENESS.text>"mean lateness"</th><th class="num">"max lateness"</th></tr></thead>
                <tbody>{stragglers}</tbody>
            </table>
            {has_mismatch.then(|| view! {
                <p class="hint" data-testid="coll-mismatch">"Kernel counts differ across ranks (instances past the shortest are marked *, never filled in):"</p>
                <ul class="hint">{mismatches}</ul>
            })}
            <h4>"By collective"</h4>
            <table class="grid analysis-table" data-testid="coll-names">
                <thead><tr><th>"kernel"</th><th class="num">"instances"</th><th class="num">"mean skew"</th>
                    <th class="num">"max skew"</th><th class="num">"mean median duration"</th></tr></thead>
                <tbody>{names}</tbody>
            </table>
            <h4>"Instances"</h4>
            <div class="gpu-toolbar" role="group" aria-label="order">
                "Order: "
                <button class="button button-quiet" data-testid="coll-sort-skew" aria-pressed=move || (order.get() == Order::Skew).to_string() on:click=pick(Order::Skew)>"skew"</button>
                <button class="button button-quiet" data-testid="coll-sort-dur" aria-pressed=move || (order.get() == Order::Duration).to_string() on:click=pick(Order::Duration)>"duration"</button>
                <button class="button button-quiet" data-testid="coll-sort-time" aria-pressed=move || (order.get() == Order::Time).to_string() on:click=pick(Order::Time)>"time"</button>
            </div>
            <table class="grid analysis-table" data-testid="coll-instances">
                <thead><tr><th>"kernel"</th><th class="num">"seq"</th><th class="num">"ranks"</th>
                    <th class="num" title=COLLECTIVE_SKEW.text>"skew"</th><th class="num">"dur min"</th><th class="num">"median"</th>
                    <th class="num">"max"</th><th class="num">"last"</th><th class="num">"bytes"</th>
                    <th class="num" title=COLLECTIVE_ALGBW.text>"algbw"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint">{move || format!("Computed in {:.0} ms.", compute_ms.get())}</p>
        }
        .into_any()
    };
    view! {
        <div class="widget-body widget-scroll collectives" data-testid="collectives">
            {body}
        </div>
    }
}
