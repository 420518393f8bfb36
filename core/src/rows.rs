//! Which rows the timeline shows, in which order: groups, their sections, tracks and counters.
//!
//! A device group (a Neuron core) is split into sections by the typed roles of its tracks and
//! counters, so a reader meets the engines first and the useful counters right under them:
//! Engines → Activity (engine activity, DMA throughput, pending DMA, utilisation, throttle
//! limit) → DMA queues → other tracks → Semaphores → other counters. Other groups keep tracks
//! then counters. Counters whose every sample is zero are folded away unless asked for; tracks
//! can be hidden, filtered by a search string, reordered, and groups and sections collapsed.
//! Pure: the app turns the plan into pixel rows, tests check it natively.

use std::collections::{HashMap, HashSet};

use crate::model::{CounterId, CounterRole, GroupId, GroupKind, TrackId, TrackRole};
use crate::Trace;

/// A section of a device group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// The operator timeline (framework → HLO spans per kind of work).
    Operators,
    Engines,
    Activity,
    Dma,
    Other,
    Semaphores,
    Counters,
}

impl Section {
    pub const ALL: [Section; 7] = [
        Section::Operators,
        Section::Engines,
        Section::Activity,
        Section::Dma,
        Section::Other,
        Section::Semaphores,
        Section::Counters,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Section::Operators => "Operators",
            Section::Engines => "Engines",
            Section::Activity => "Activity",
            Section::Dma => "DMA queues",
            Section::Other => "Other tracks",
            Section::Semaphores => "Semaphores",
            Section::Counters => "Counters",
        }
    }
    /// Section of a track by its role.
    pub fn of_track(role: TrackRole) -> Section {
        match role {
            TrackRole::OperatorSpans(_) => Section::Operators,
            TrackRole::Engine(_) => Section::Engines,
            r if r.is_dma() => Section::Dma,
            _ => Section::Other,
        }
    }
    /// Section of a counter by its role.
    pub fn of_counter(role: CounterRole) -> Section {
        match role {
            CounterRole::Semaphore => Section::Semaphores,
            r if r.is_device_activity() => Section::Activity,
            _ => Section::Counters,
        }
    }
}

/// A track or a counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKey {
    Track(TrackId),
    Counter(CounterId),
}

/// One row of the plan.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanRow {
    /// A group header; when collapsed, `folded` lists everything it hides.
    Group {
        group: GroupId,
        collapsed: bool,
        shown: usize,
        folded: Vec<RowKey>,
    },
    /// A section header inside a device group.
    Section {
        group: GroupId,
        section: Section,
        collapsed: bool,
        shown: usize,
        folded: Vec<RowKey>,
    },
    Track(TrackId),
    Counter(CounterId),
}

/// What the user chose.
#[derive(Debug, Clone, Default)]
pub struct RowOptions {
    pub collapsed_groups: HashSet<GroupId>,
    pub collapsed_sections: HashSet<(GroupId, Section)>,
    pub hidden: HashSet<RowKey>,
    /// Show counters whose samples are all zero.
    pub show_zero_counters: bool,
    /// Case-insensitive substring of "group / name"; empty = everything.
    pub filter: String,
    /// User order within a group or section (lower first); rows without one keep their place
    /// after the ordered ones, by their natural order.
    pub order: HashMap<RowKey, i64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowPlan {
    pub rows: Vec<PlanRow>,
    /// All-zero counters folded away (not shown because `show_zero_counters` is off).
    pub zero_folded: usize,
    /// Rows hidden by the user.
    pub hidden: usize,
    /// Rows left out by the filter.
    pub filtered_out: usize,
}

/// Per counter: every sample is zero (or there is none).
pub fn zero_counters(trace: &Trace) -> Vec<bool> {
    trace.counters.iter().map(|c| c.value.iter().all(|&v| v == 0.0)).collect()
}

/// Whether a device group is split into sections (it has at least two kinds of rows).
fn sectioned(trace: &Trace, g: GroupId) -> bool {
    let grp = &trace.groups[g.idx()];
    if grp.kind != GroupKind::Device {
        return false;
    }
    let mut kinds = HashSet::new();
    for &t in &grp.tracks {
        kinds.insert(Section::of_track(trace.tracks[t.idx()].role));
    }
    for &c in &grp.counters {
        kinds.insert(Section::of_counter(trace.counters[c.idx()].role));
    }
    kinds.len() >= 2
}

pub fn plan_rows(trace: &Trace, zero: &[bool], opts: &RowOptions) -> RowPlan {
    let mut plan = RowPlan::default();
    let filter = opts.filter.trim().to_lowercase();
    for gid in trace.ordered_groups() {
        let g = &trace.groups[gid.idx()];
        let gname = trace.str(g.name);
        let group_matches = !filter.is_empty() && gname.to_lowercase().contains(&filter);
        // the rows of this group that survive hiding, folding and filtering
        let mut keys: Vec<(Section, (i64, i64, u32), RowKey)> = Vec::new();
        for &t in &g.tracks {
            let tr = &trace.tracks[t.idx()];
            keys.push((Section::of_track(tr.role), (0, tr.sort_index, t.0), RowKey::Track(t)));
        }
        for &c in &g.counters {
            let ct = &trace.counters[c.idx()];
            keys.push((Section::of_counter(ct.role), (1, ct.sort_index, c.0), RowKey::Counter(c)));
        }
        let mut kept = Vec::with_capacity(keys.len());
        for (sec, natural, key) in keys {
            if opts.hidden.contains(&key) {
                plan.hidden += 1;
                continue;
            }
            if let RowKey::Counter(c) = key {
                if !opts.show_zero_counters && zero.get(c.idx()).copied().unwrap_or(false) {
                    plan.zero_folded += 1;
                    continue;
                }
            }
            if !filter.is_empty() && !group_matches {
                let name = match key {
                    RowKey::Track(t) => trace.str(trace.tracks[t.idx()].name),
                    RowKey::Counter(c) => trace.str(trace.counters[c.idx()].name),
                };
                if !name.to_lowercase().contains(&filter) {
                    plan.filtered_out += 1;
                    continue;
                }
            }
            kept.push((sec, natural, key));
        }
        if kept.is_empty() && !filter.is_empty() && !group_matches {
            continue;
        }
        let use_sections = sectioned(trace, gid);
        // sections (device groups) or one run; inside, the user's order, then the natural one
        kept.sort_by_key(|&(sec, natural, key)| {
            let sec = if use_sections { sec } else { Section::Engines };
            let user = opts.order.get(&key).copied();
            (sec, user.is_none(), user.unwrap_or(0), natural)
        });
        let collapsed = opts.collapsed_groups.contains(&gid);
        plan.rows.push(PlanRow::Group {
            group: gid,
            collapsed,
            shown: kept.len(),
            folded: if collapsed { kept.iter().map(|k| k.2).collect() } else { Vec::new() },
        });
        if collapsed {
            continue;
        }
        let mut i = 0;
        while i < kept.len() {
            let sec = kept[i].0;
            let mut j = i;
            while j < kept.len() && (!use_sections || kept[j].0 == sec) {
                j += 1;
            }
            let run = &kept[i..j];
            if use_sections {
                let sc = opts.collapsed_sections.contains(&(gid, sec));
                plan.rows.push(PlanRow::Section {
                    group: gid,
                    section: sec,
                    collapsed: sc,
                    shown: run.len(),
                    folded: if sc { run.iter().map(|k| k.2).collect() } else { Vec::new() },
                });
                if sc {
                    i = j;
                    continue;
                }
            }
            for &(_, _, key) in run {
                plan.rows.push(match key {
                    RowKey::Track(t) => PlanRow::Track(t),
                    RowKey::Counter(c) => PlanRow::Counter(c),
                });
            }
            i = j;
        }
    }
    plan
}

/// The user order after moving `key` one place up (`delta = -1`) or down (`+1`) among
/// `siblings` (the rows of its group or section, in their shown order).
pub fn move_row(order: &mut HashMap<RowKey, i64>, siblings: &[RowKey], key: RowKey, delta: i64) {
    let Some(pos) = siblings.iter().position(|&k| k == key) else { return };
    let to = pos as i64 + delta;
    if to < 0 || to as usize >= siblings.len() {
        return;
    }
    let mut v = siblings.to_vec();
    v.swap(pos, to as usize);
    for (i, k) in v.into_iter().enumerate() {
        order.insert(k, i as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgsId, Engine, TraceBuilder, TrackKind};
    use crate::strings::StrId;

    /// A device group with two engines, a DMA queue, 3 semaphores (2 flat zero), an activity
    /// counter and a generic counter; and a host process with one thread.
    fn device_trace() -> Trace {
        let mut b = TraceBuilder::new("test");
        let host = b.add_group("host", GroupKind::Process);
        let th = b.add_track(host, "main", TrackKind::Thread, "1");
        let dev = b.add_group("nc0", GroupKind::Device);
        let n = b.intern("x");
        for (name, e) in [("Tensor", Engine::Tensor), ("Vector", Engine::Vector)] {
            let t = b.add_track(dev, name, TrackKind::Stream, "");
            b.set_track_role(t, TrackRole::Engine(e));
            b.add_slice(t, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        }
        let q = b.add_track(dev, "qSync0", TrackKind::Dma, "");
        b.set_track_role(q, TrackRole::DmaQueue);
        b.add_slice(q, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        b.add_slice(th, 0, 10, n, StrId::EMPTY, ArgsId::NONE);
        for (i, v) in [0.0, 3.0, 0.0].into_iter().enumerate() {
            let c = b.add_counter(dev, &format!("sem {i}"), "");
            b.set_counter_role(c, CounterRole::Semaphore);
            b.add_counter_sample(c, 0, 0.0);
            b.add_counter_sample(c, 5, v);
        }
        let a = b.add_counter(dev, "Tensor active", "");
        b.set_counter_role(a, CounterRole::EngineActivity);
        b.add_counter_sample(a, 0, 1.0);
        let gc = b.add_counter(dev, "SBUF partition 0 usage", "%");
        b.add_counter_sample(gc, 0, 2.0);
        b.finish()
    }

    fn names(tr: &Trace, p: &RowPlan) -> Vec<String> {
        p.rows
            .iter()
            .map(|r| match r {
                PlanRow::Group { group, collapsed, .. } => {
                    format!("G:{}{}", tr.str(tr.groups[group.idx()].name), if *collapsed { "+" } else { "" })
                }
                PlanRow::Section { section, collapsed, .. } => {
                    format!("S:{}{}", section.label(), if *collapsed { "+" } else { "" })
                }
                PlanRow::Track(t) => tr.str(tr.tracks[t.idx()].name).to_string(),
                PlanRow::Counter(c) => tr.str(tr.counters[c.idx()].name).to_string(),
            })
            .collect()
    }

    #[test]
    fn device_sections_in_reading_order_zero_counters_folded() {
        let tr = device_trace();
        let zero = zero_counters(&tr);
        let p = plan_rows(&tr, &zero, &RowOptions::default());
        let got = names(&tr, &p);
        let dev_at = got.iter().position(|s| s == "G:nc0").unwrap();
        assert_eq!(
            got[dev_at..].to_vec(),
            [
                "G:nc0",
                "S:Engines",
                "Tensor",
                "Vector",
                "S:Activity",
                "Tensor active",
                "S:DMA queues",
                "qSync0",
                "S:Semaphores",
                "sem 1",
                "S:Counters",
                "SBUF partition 0 usage"
            ]
        );
        assert_eq!(p.zero_folded, 2);
        assert!(got.contains(&"G:host".to_string()) && got.contains(&"main".to_string()));
        // non-device groups have no sections
        assert!(!got[..dev_at].iter().any(|s| s.starts_with("S:")));
        let all = plan_rows(&tr, &zero, &RowOptions { show_zero_counters: true, ..Default::default() });
        assert_eq!(all.zero_folded, 0);
        assert!(names(&tr, &all).contains(&"sem 0".to_string()));
    }

    #[test]
    fn collapse_hide_filter_and_order() {
        let tr = device_trace();
        let zero = zero_counters(&tr);
        let dev = GroupId(1);
        let mut o = RowOptions::default();
        o.collapsed_sections.insert((dev, Section::Engines));
        let p = plan_rows(&tr, &zero, &o);
        let sec = p.rows.iter().find_map(|r| match r {
            PlanRow::Section { section: Section::Engines, collapsed, folded, .. } => {
                Some((*collapsed, folded.len()))
            }
            _ => None,
        });
        assert_eq!(sec, Some((true, 2)));
        assert!(!names(&tr, &p).contains(&"Tensor".to_string()));

        let mut o = RowOptions::default();
        o.collapsed_groups.insert(dev);
        let p = plan_rows(&tr, &zero, &o);
        let folded = p.rows.iter().find_map(|r| match r {
            PlanRow::Group { group, folded, .. } if *group == dev => Some(folded.len()),
            _ => None,
        });
        assert_eq!(folded, Some(6), "2 engines, dma, sem 1, activity, generic");

        let mut o = RowOptions::default();
        o.hidden.insert(RowKey::Track(TrackId(1)));
        let p = plan_rows(&tr, &zero, &o);
        assert_eq!(p.hidden, 1);
        assert!(!names(&tr, &p).contains(&"Tensor".to_string()));

        let o = RowOptions { filter: "VECT".into(), ..Default::default() };
        let p = plan_rows(&tr, &zero, &o);
        assert_eq!(names(&tr, &p), ["G:nc0", "S:Engines", "Vector"]);
        // a filter matching the group name keeps the whole group
        let o = RowOptions { filter: "host".into(), ..Default::default() };
        assert_eq!(names(&tr, &plan_rows(&tr, &zero, &o)), ["G:host", "main"]);

        let mut o = RowOptions::default();
        let sib = [RowKey::Track(TrackId(1)), RowKey::Track(TrackId(2))];
        move_row(&mut o.order, &sib, RowKey::Track(TrackId(2)), -1);
        let got = names(&tr, &plan_rows(&tr, &zero, &o));
        let i = got.iter().position(|s| s == "S:Engines").unwrap();
        assert_eq!(&got[i + 1..i + 3], ["Vector", "Tensor"]);
        // moving past either end does nothing
        let before = o.order.clone();
        let now = [RowKey::Track(TrackId(2)), RowKey::Track(TrackId(1))];
        move_row(&mut o.order, &now, RowKey::Track(TrackId(2)), -1);
        move_row(&mut o.order, &now, RowKey::Track(TrackId(1)), 1);
        assert_eq!(o.order, before);
    }
}
