//! The dock layout as data: a tree of splits whose leaves are slots holding widgets as tabs.
//! Pure (no DOM): the workbench renders it by computing one rectangle per slot, so moving or
//! resizing never remounts a widget. Serialised with serde for named layouts in localStorage.

use serde::{Deserialize, Serialize};

/// Every widget the workbench knows (the registry's keys). One instance of each at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WidgetKind {
    Timeline,
    Details,
    Search,
    Summary,
    SelectionSummary,
    Program,
    OperatorViews,
    Annotations,
    OperatorTable,
    Dashboard,
    Code,
    GpuBreakdown,
    Latency,
    Compare,
    CriticalPath,
    Regions,
    Collectives,
    Tensors,
    RankSummary,
    Memory,
}

impl WidgetKind {
    pub const ALL: [WidgetKind; 20] = [
        WidgetKind::Timeline,
        WidgetKind::Details,
        WidgetKind::Search,
        WidgetKind::Summary,
        WidgetKind::SelectionSummary,
        WidgetKind::Program,
        WidgetKind::OperatorViews,
        WidgetKind::Annotations,
        WidgetKind::OperatorTable,
        WidgetKind::Dashboard,
        WidgetKind::Code,
        WidgetKind::GpuBreakdown,
        WidgetKind::Latency,
        WidgetKind::Compare,
        WidgetKind::CriticalPath,
        WidgetKind::Regions,
        WidgetKind::Collectives,
        WidgetKind::Tensors,
        WidgetKind::RankSummary,
        WidgetKind::Memory,
    ];
    pub fn title(self) -> &'static str {
        match self {
            WidgetKind::Timeline => "Timeline",
            WidgetKind::Details => "Event Details",
            WidgetKind::Search => "Search",
            WidgetKind::Summary => "Overall Summary",
            WidgetKind::SelectionSummary => "Current Selection",
            WidgetKind::Program => "Program",
            WidgetKind::OperatorViews => "Operator Views",
            WidgetKind::Annotations => "Annotations",
            WidgetKind::OperatorTable => "Operator Table",
            WidgetKind::Dashboard => "Dashboard",
            WidgetKind::Code => "Code",
            WidgetKind::GpuBreakdown => "GPU Breakdown",
            WidgetKind::Latency => "Latency",
            WidgetKind::Compare => "Compare",
            WidgetKind::CriticalPath => "Critical Path",
            WidgetKind::Regions => "Regions",
            WidgetKind::Collectives => "Collectives",
            WidgetKind::Tensors => "Tensors",
            WidgetKind::RankSummary => "Rank Summary",
            WidgetKind::Memory => "Memory",
        }
    }
    /// `data-testid="widget-<name>"` of the widget's root.
    pub fn test_name(self) -> &'static str {
        match self {
            WidgetKind::Timeline => "timeline",
            WidgetKind::Details => "details",
            WidgetKind::Search => "search",
            WidgetKind::Summary => "summary",
            WidgetKind::SelectionSummary => "selection-summary",
            WidgetKind::Program => "program",
            WidgetKind::OperatorViews => "operator-views",
            WidgetKind::Annotations => "annotations",
            WidgetKind::OperatorTable => "operator-table",
            WidgetKind::Dashboard => "dashboard",
            WidgetKind::Code => "code",
            WidgetKind::GpuBreakdown => "gpu-breakdown",
            WidgetKind::Latency => "latency",
            WidgetKind::Compare => "compare",
            WidgetKind::CriticalPath => "critical-path",
            WidgetKind::Regions => "regions",
            WidgetKind::Collectives => "collectives",
            WidgetKind::Tensors => "tensors",
            WidgetKind::RankSummary => "rank-summary",
            WidgetKind::Memory => "memory",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Node {
    /// Children side by side (`horizontal`) or stacked; `sizes` are fractions summing to 1.
    Split { horizontal: bool, sizes: Vec<f64>, children: Vec<Node> },
    /// A slot: its widgets are tabs; `active` indexes `widgets`.
    Slot { widgets: Vec<WidgetKind>, active: usize },
}

/// A rectangle in fractions of the workbench (0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Path from the root to a node: child indices.
pub type Path = Vec<usize>;

/// A slot's placement, for rendering.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotBox {
    pub path: Path,
    pub rect: Rect,
    pub widgets: Vec<WidgetKind>,
    pub active: usize,
}

/// A splitter between children `index` and `index + 1` of the split at `path`.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitterBox {
    pub path: Path,
    pub index: usize,
    pub horizontal: bool,
    /// Position of the boundary (x for horizontal splits, y otherwise) in fractions.
    pub at: f64,
    /// The split's own rectangle (the splitter spans it across).
    pub rect: Rect,
}

/// The smallest fraction a pane can be resized to.
pub const MIN_SIZE: f64 = 0.05;

fn slot(ws: &[WidgetKind]) -> Node {
    Node::Slot { widgets: ws.to_vec(), active: 0 }
}

fn split(horizontal: bool, parts: Vec<(f64, Node)>) -> Node {
    let (sizes, children) = parts.into_iter().unzip();
    Node::Split { horizontal, sizes, children }
}

/// What kind of profile is open: chooses the default layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProfileKind {
    /// A Neuron device profile (NTFF, JSON export, Parquet), possibly with its NEFF.
    Device,
    /// Several Neuron device profiles of one job (one NTFF per NeuronCore: ranks).
    DeviceRanks,
    /// A trace with GPU streams (Kineto, Nsight, rocprof, …).
    GpuTrace,
    /// A trace without device work (CPU threads only: Chrome, Perfetto, a CPU-only Kineto run).
    Trace,
    /// A compiled program alone (NEFF).
    ProgramOnly,
    /// Report tables without a timeline (DLProf `--reports` CSVs).
    Reports,
}

impl Node {
    /// The default layout of a kind of profile. The timeline and the one widget that answers the
    /// kind's first question get the room (device profile: the Overall Summary with the engines'
    /// active time; GPU trace: the GPU Breakdown; CPU trace: the Overall Summary); everything else
    /// is a tab one click away; Search keeps a pane of its own. Four panes in two rows at most, so
    /// that no pane is under ~300 px tall in a 1440×900 window (tab bars included: ≈ 820 px of
    /// workbench × 0.38 ≈ 310 px).
    pub fn default_for(kind: ProfileKind) -> Node {
        use WidgetKind::*;
        let (main, below, side, side_share): (&[WidgetKind], &[WidgetKind], &[WidgetKind], f64) = match kind {
            // the ranks' question first: which core is slow
            ProfileKind::DeviceRanks => (
                &[Timeline, Program],
                &[
                    RankSummary,
                    Details,
                    OperatorTable,
                    OperatorViews,
                    Regions,
                    Memory,
                    SelectionSummary,
                    Annotations,
                ],
                &[Summary, Code],
                0.30,
            ),
            ProfileKind::Device => (
                &[Timeline, Program],
                &[
                    Details,
                    OperatorTable,
                    OperatorViews,
                    Regions,
                    Tensors,
                    Memory,
                    SelectionSummary,
                    Annotations,
                ],
                &[Summary, Code],
                0.30,
            ),
            ProfileKind::GpuTrace => (
                &[Timeline, Dashboard],
                &[
                    Details,
                    OperatorTable,
                    Latency,
                    CriticalPath,
                    RankSummary,
                    Collectives,
                    Regions,
                    SelectionSummary,
                    Annotations,
                ],
                &[GpuBreakdown, Summary],
                0.32,
            ),
            ProfileKind::Trace => (
                &[Timeline],
                &[Details, OperatorTable, Latency, SelectionSummary, Annotations],
                &[Summary],
                0.28,
            ),
            ProfileKind::ProgramOnly => {
                return split(true, vec![(0.72, slot(&[Program])), (0.28, slot(&[Summary, Search]))])
            }
            ProfileKind::Reports => {
                return split(
                    true,
                    vec![(0.74, slot(&[Dashboard, Timeline])), (0.26, slot(&[Summary, Search]))],
                )
            }
        };
        split(
            true,
            vec![
                (1.0 - side_share, split(false, vec![(0.62, slot(main)), (0.38, slot(below))])),
                // the search box stays in view (it is typed into more than anything else)
                (side_share, split(false, vec![(0.38, slot(&[Search])), (0.62, slot(side))])),
            ],
        )
    }

    /// Every widget in the layout, in tree order.
    pub fn widgets(&self) -> Vec<WidgetKind> {
        let mut v = Vec::new();
        self.walk(&mut |n, _| {
            if let Node::Slot { widgets, .. } = n {
                v.extend(widgets.iter().copied());
            }
        });
        v
    }

    pub fn contains(&self, w: WidgetKind) -> bool {
        self.widgets().contains(&w)
    }

    fn walk(&self, f: &mut impl FnMut(&Node, &Path)) {
        fn go(n: &Node, path: &mut Path, f: &mut impl FnMut(&Node, &Path)) {
            f(n, path);
            if let Node::Split { children, .. } = n {
                for (i, c) in children.iter().enumerate() {
                    path.push(i);
                    go(c, path, f);
                    path.pop();
                }
            }
        }
        go(self, &mut Vec::new(), f)
    }

    pub fn at(&self, path: &[usize]) -> Option<&Node> {
        match path.split_first() {
            None => Some(self),
            Some((&i, rest)) => match self {
                Node::Split { children, .. } => children.get(i)?.at(rest),
                Node::Slot { .. } => None,
            },
        }
    }

    fn at_mut(&mut self, path: &[usize]) -> Option<&mut Node> {
        match path.split_first() {
            None => Some(self),
            Some((&i, rest)) => match self {
                Node::Split { children, .. } => children.get_mut(i)?.at_mut(rest),
                Node::Slot { .. } => None,
            },
        }
    }

    /// Slots with their rectangles, and the splitters between panes.
    pub fn boxes(&self) -> (Vec<SlotBox>, Vec<SplitterBox>) {
        let mut slots = Vec::new();
        let mut splitters = Vec::new();
        fn go(n: &Node, r: Rect, path: &mut Path, slots: &mut Vec<SlotBox>, sp: &mut Vec<SplitterBox>) {
            match n {
                Node::Slot { widgets, active } => slots.push(SlotBox {
                    path: path.clone(),
                    rect: r,
                    widgets: widgets.clone(),
                    active: (*active).min(widgets.len().saturating_sub(1)),
                }),
                Node::Split { horizontal, sizes, children } => {
                    let total: f64 = sizes.iter().sum::<f64>().max(1e-9);
                    let mut off = 0.0;
                    for (i, c) in children.iter().enumerate() {
                        let f = sizes.get(i).copied().unwrap_or(0.0) / total;
                        let cr = if *horizontal {
                            Rect { x: r.x + off * r.w, y: r.y, w: f * r.w, h: r.h }
                        } else {
                            Rect { x: r.x, y: r.y + off * r.h, w: r.w, h: f * r.h }
                        };
                        off += f;
                        if i + 1 < children.len() {
                            let at = if *horizontal { r.x + off * r.w } else { r.y + off * r.h };
                            sp.push(SplitterBox {
                                path: path.clone(),
                                index: i,
                                horizontal: *horizontal,
                                at,
                                rect: r,
                            });
                        }
                        path.push(i);
                        go(c, cr, path, slots, sp);
                        path.pop();
                    }
                }
            }
        }
        go(self, Rect { x: 0.0, y: 0.0, w: 1.0, h: 1.0 }, &mut Vec::new(), &mut slots, &mut splitters);
        (slots, splitters)
    }

    /// Move the boundary after child `index` of the split at `path` to `at` (a fraction of the
    /// whole workbench), keeping both neighbours at least [`MIN_SIZE`] of the split.
    pub fn resize(&mut self, path: &[usize], index: usize, at: f64) {
        let (_, splitters) = self.boxes();
        let Some(sb) = splitters.iter().find(|s| s.path == path && s.index == index) else { return };
        let (origin, extent) = if sb.horizontal { (sb.rect.x, sb.rect.w) } else { (sb.rect.y, sb.rect.h) };
        let Some(Node::Split { sizes, .. }) = self.at_mut(path) else { return };
        let total: f64 = sizes.iter().sum::<f64>().max(1e-9);
        let before: f64 = sizes[..index].iter().sum::<f64>() / total;
        let pair = (sizes[index] + sizes[index + 1]) / total;
        let local = ((at - origin) / extent.max(1e-9)).clamp(0.0, 1.0);
        let a = (local - before).clamp(MIN_SIZE.min(pair / 2.0), (pair - MIN_SIZE).max(pair / 2.0));
        let scale = total;
        sizes[index] = a * scale;
        sizes[index + 1] = (pair - a) * scale;
    }

    /// Remove a widget wherever it is; empty slots disappear and single-child splits collapse.
    pub fn remove(&mut self, w: WidgetKind) {
        if let Node::Slot { widgets, active } = self {
            widgets.retain(|&x| x != w);
            *active = (*active).min(widgets.len().saturating_sub(1));
            return;
        }
        if let Node::Split { sizes, children, .. } = self {
            for c in children.iter_mut() {
                c.remove(w);
            }
            let mut k = 0;
            while k < children.len() {
                let empty = matches!(&children[k], Node::Slot { widgets, .. } if widgets.is_empty())
                    || matches!(&children[k], Node::Split { children: cc, .. } if cc.is_empty());
                if empty {
                    children.remove(k);
                    sizes.remove(k);
                } else {
                    k += 1;
                }
            }
            if children.len() == 1 {
                let only = children.remove(0);
                *self = only;
            }
        }
    }

    /// Put `w` into the slot at `path` as its active tab (moving it if it is elsewhere).
    pub fn place(&mut self, w: WidgetKind, path: &[usize]) {
        let target = self.at(path).cloned();
        let Some(Node::Slot { widgets: target_widgets, .. }) = target else { return };
        // identify the target slot by one of its other widgets, since removing may reshape paths
        let anchor = target_widgets.iter().copied().find(|&x| x != w);
        if anchor.is_none() && target_widgets.contains(&w) {
            return; // already alone there
        }
        self.remove(w);
        let path = match anchor {
            Some(a) => self.slot_of(a),
            None => Some(path.to_vec()).filter(|p| matches!(self.at(p), Some(Node::Slot { .. }))),
        };
        match path.and_then(|p| self.at_mut(&p)) {
            Some(Node::Slot { widgets, active }) => {
                widgets.push(w);
                *active = widgets.len() - 1;
            }
            _ => self.add(w),
        }
    }

    /// Put `w` beside the slot at `path` as a new pane (`horizontal`: to its right, else below).
    pub fn split_beside(&mut self, w: WidgetKind, path: &[usize], horizontal: bool) {
        let anchor = self.at(path).and_then(|n| match n {
            Node::Slot { widgets, .. } => widgets.iter().copied().find(|&x| x != w),
            _ => None,
        });
        let Some(anchor) = anchor else { return };
        self.remove(w);
        let Some(p) = self.slot_of(anchor) else { return };
        if let Some(n) = self.at_mut(&p) {
            let old = std::mem::replace(n, slot(&[]));
            *n = split(horizontal, vec![(0.5, old), (0.5, slot(&[w]))]);
        }
    }

    /// Add `w` (if absent) to the largest slot.
    pub fn add(&mut self, w: WidgetKind) {
        if self.contains(w) {
            return;
        }
        let (slots, _) = self.boxes();
        let best = slots
            .iter()
            .max_by(|a, b| (a.rect.w * a.rect.h).total_cmp(&(b.rect.w * b.rect.h)))
            .map(|s| s.path.clone());
        match best.and_then(|p| self.at_mut(&p)) {
            Some(Node::Slot { widgets, active }) => {
                widgets.push(w);
                *active = widgets.len() - 1;
            }
            _ => *self = slot(&[w]),
        }
    }

    /// Add `w` (if absent) as a tab of `anchor`'s slot (else the largest slot), and show it.
    pub fn add_beside(&mut self, w: WidgetKind, anchor: WidgetKind) {
        if !self.contains(w) {
            match self.slot_of(anchor).and_then(|p| self.at_mut(&p)) {
                Some(Node::Slot { widgets, .. }) => widgets.push(w),
                _ => self.add(w),
            }
        }
        self.activate(w);
    }

    /// Make `w` the active tab of its slot.
    pub fn activate(&mut self, w: WidgetKind) {
        if let Some(p) = self.slot_of(w) {
            if let Some(Node::Slot { widgets, active }) = self.at_mut(&p) {
                if let Some(i) = widgets.iter().position(|&x| x == w) {
                    *active = i;
                }
            }
        }
    }

    /// Whether `w` is in the layout and the active tab of its slot (so it is on screen).
    pub fn is_shown(&self, w: WidgetKind) -> bool {
        let mut shown = false;
        self.walk(&mut |n, _| {
            if let Node::Slot { widgets, active } = n {
                shown |= widgets.get(*active) == Some(&w);
            }
        });
        shown
    }

    /// Path of the slot holding `w`.
    pub fn slot_of(&self, w: WidgetKind) -> Option<Path> {
        let mut found = None;
        self.walk(&mut |n, p| {
            if let Node::Slot { widgets, .. } = n {
                if widgets.contains(&w) && found.is_none() {
                    found = Some(p.clone());
                }
            }
        });
        found
    }

    /// Repair a layout read from storage: drop duplicates, fix sizes and active indices.
    pub fn sanitize(mut self) -> Option<Node> {
        let mut seen = Vec::new();
        fn go(n: &mut Node, seen: &mut Vec<WidgetKind>) {
            match n {
                Node::Slot { widgets, active } => {
                    widgets.retain(|w| {
                        let new = !seen.contains(w);
                        seen.push(*w);
                        new
                    });
                    *active = (*active).min(widgets.len().saturating_sub(1));
                }
                Node::Split { sizes, children, .. } => {
                    sizes.resize(children.len(), 1.0);
                    for s in sizes.iter_mut() {
                        if !s.is_finite() || *s <= 0.0 {
                            *s = 1.0;
                        }
                    }
                    for c in children {
                        go(c, seen);
                    }
                }
            }
        }
        go(&mut self, &mut seen);
        if seen.is_empty() {
            return None;
        }
        // collapse empties
        for w in WidgetKind::ALL {
            if !self.contains(w) {
                self.remove(w);
            }
        }
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use WidgetKind::*;

    #[test]
    fn default_layouts_hold_the_expected_widgets_and_tile_the_area() {
        let kinds = [
            ProfileKind::Device,
            ProfileKind::DeviceRanks,
            ProfileKind::GpuTrace,
            ProfileKind::Trace,
            ProfileKind::ProgramOnly,
            ProfileKind::Reports,
        ];
        for kind in kinds {
            let l = Node::default_for(kind);
            let (slots, _) = l.boxes();
            let area: f64 = slots.iter().map(|s| s.rect.w * s.rect.h).sum();
            assert!((area - 1.0).abs() < 1e-9, "{kind:?} {area}");
            // ≈ 820 px of workbench in a 1440×900 window: no pane under 300 px, at most 3 panes
            for s in &slots {
                assert!(s.rect.h * 820.0 >= 300.0, "{kind:?}: a pane of {:.0} px", s.rect.h * 820.0);
            }
            assert!(slots.len() <= 4, "{kind:?}: {} panes", slots.len());
        }
        let r = Node::default_for(ProfileKind::DeviceRanks);
        assert!(
            r.contains(RankSummary) && r.is_shown(RankSummary),
            "a job's ranks: the Rank Summary in front"
        );
        assert!(!Node::default_for(ProfileKind::Device).contains(RankSummary));
        let d = Node::default_for(ProfileKind::Device);
        for w in [Timeline, Details, Search, Summary, SelectionSummary, Program, Annotations, OperatorTable] {
            assert!(d.contains(w), "{w:?}");
        }
        // the first answer of each kind is shown, not a tab behind another
        assert!(d.is_shown(Timeline) && d.is_shown(Summary) && d.is_shown(Details) && d.is_shown(Search));
        let g = Node::default_for(ProfileKind::GpuTrace);
        assert!(g.is_shown(Timeline) && g.is_shown(GpuBreakdown) && g.is_shown(Details));
        assert!(
            g.contains(Dashboard) && g.contains(Latency) && g.contains(Annotations) && !g.contains(Program)
        );
        assert!(g.contains(CriticalPath) && !g.is_shown(CriticalPath), "one tab away, computed when shown");
        assert!(g.contains(Collectives) && !g.is_shown(Collectives), "one tab away, computed when shown");
        assert!(g.contains(RankSummary) && !g.is_shown(RankSummary), "one tab away, computed when shown");
        // a CPU-only trace has no GPU widgets
        let c = Node::default_for(ProfileKind::Trace);
        assert!(!c.contains(GpuBreakdown) && !c.contains(Dashboard) && !c.contains(Program));
        assert!(!c.contains(CriticalPath) && !Node::default_for(ProfileKind::Device).contains(CriticalPath));
        assert!(c.is_shown(Timeline) && c.is_shown(Summary));
        assert!(!d.contains(GpuBreakdown) && !d.contains(Latency));
        assert!(d.contains(Memory) && !d.is_shown(Memory), "one tab away on a device profile");
        assert!(!g.contains(Memory) && !c.contains(Memory));
        assert_eq!(Node::default_for(ProfileKind::Reports).widgets()[0], Dashboard);
        let mut t = Node::default_for(ProfileKind::GpuTrace);
        assert_eq!(t.slot_of(Latency), t.slot_of(Details));
        assert!(t.is_shown(Details) && !t.is_shown(Latency));
        t.activate(Latency);
        assert!(t.is_shown(Latency) && !t.is_shown(Details));
    }

    #[test]
    fn remove_collapses_and_add_goes_to_the_largest_slot() {
        let mut l = Node::default_for(ProfileKind::Trace);
        let panes = l.boxes().0.len();
        // empty the Current Selection slot (it has other tabs beside it)
        let slot = l.slot_of(SelectionSummary).unwrap();
        let mates: Vec<WidgetKind> =
            l.widgets().into_iter().filter(|&w| l.slot_of(w) == Some(slot.clone())).collect();
        for w in mates {
            l.remove(w);
        }
        assert!(!l.contains(SelectionSummary));
        let (slots, _) = l.boxes();
        assert_eq!(slots.len(), panes - 1, "the emptied pane collapsed");
        let area: f64 = slots.iter().map(|s| s.rect.w * s.rect.h).sum();
        assert!((area - 1.0).abs() < 1e-9);
        l.add(SelectionSummary);
        let p = l.slot_of(SelectionSummary).unwrap();
        assert_eq!(l.slot_of(Timeline).unwrap(), p, "largest slot is the timeline's");
        l.add(SelectionSummary);
        assert_eq!(l.widgets().iter().filter(|&&w| w == SelectionSummary).count(), 1);
    }

    #[test]
    fn place_moves_a_widget_between_slots() {
        let mut l = Node::default_for(ProfileKind::Trace);
        let target = l.slot_of(Summary).unwrap();
        let n = l.widgets().len();
        l.place(Details, &target);
        assert_eq!(l.slot_of(Details), l.slot_of(Summary));
        assert_eq!(l.widgets().len(), n);
        // moving the last widget of a slot onto its own slot is a no-op
        let p = l.slot_of(Search).unwrap();
        let before = l.clone();
        l.place(Search, &p);
        assert_eq!(l, before);
        l.split_beside(Search, &l.slot_of(Timeline).unwrap(), true);
        assert!(l.contains(Search));
        let (slots, _) = l.boxes();
        let area: f64 = slots.iter().map(|s| s.rect.w * s.rect.h).sum();
        assert!((area - 1.0).abs() < 1e-9);
    }

    #[test]
    fn resize_moves_the_boundary_within_limits() {
        let mut l = Node::default_for(ProfileKind::Trace);
        let (_, sp) = l.boxes();
        let root = sp.iter().find(|s| s.path.is_empty()).unwrap().clone();
        l.resize(&[], root.index, 0.5);
        let (_, sp) = l.boxes();
        let root2 = sp.iter().find(|s| s.path.is_empty()).unwrap();
        assert!((root2.at - 0.5).abs() < 1e-9, "{}", root2.at);
        l.resize(&[], 0, 2.0);
        let (_, sp) = l.boxes();
        assert!(sp.iter().find(|s| s.path.is_empty()).unwrap().at <= 1.0 - MIN_SIZE + 1e-9);
    }

    #[test]
    fn serde_round_trip_and_sanitize() {
        let l = Node::default_for(ProfileKind::Device);
        let j = serde_json::to_string(&l).unwrap();
        let back: Node = serde_json::from_str(&j).unwrap();
        assert_eq!(back, l);
        let dup = Node::Split {
            horizontal: true,
            sizes: vec![f64::NAN],
            children: vec![slot(&[Timeline, Timeline]), slot(&[Timeline])],
        };
        let s = dup.sanitize().unwrap();
        assert_eq!(s.widgets(), vec![Timeline]);
        assert!(Node::Slot { widgets: vec![], active: 3 }.sanitize().is_none());
    }
}
