//! The timeline's frame: everything the controller holds, handed to the stateless painter
//! (`canvas::painter`) as one [`Frame`], then the visible window published on the
//! [`ViewportBus`](crate::state::ViewportBus) and the frame's numbers in `window.__loupe`.

use loupe_core::analysis::annotations::Marker;

use super::ctl::{set_prop, TimelineCtl};
use super::view::Drag;
use crate::canvas::painter::{self, Frame};
use crate::platform::now_ms;

impl TimelineCtl {
    /// Paint now (called by the scheduler).
    pub fn paint(&self) {
        let t0 = now_ms();
        let mut v = self.view.borrow_mut();
        if v.vp.width_px <= 0.0 || v.vp.height_px <= 0.0 {
            return;
        }
        // a window another view asked for (B's lanes in the Compare widget zoom and pan A too)
        if let Some((t0_ns, t1_ns)) = self.out.bus.as_ref().and_then(|b| b.take_request()) {
            let w = v.vp.width_px;
            v.vp.scale.zoom_to(t0_ns, t1_ns, w);
            v.hover = None;
            self.hide_tooltip();
        }
        self.clamp(&mut v);
        let data = self.model.data.borrow();
        let layout = self.model.layout.borrow();
        let theme = self.surface.theme.borrow();
        let frame = Frame {
            data: &data,
            layout: &layout,
            theme: &theme,
            scale: v.vp.scale,
            scroll_y_px: v.vp.scroll_y_px,
            width_px: v.vp.width_px,
            height_px: v.vp.height_px,
            dpr: v.dpr,
            char_w_px: self.surface.char_w_px,
            selection: self.marks.selection.get(),
            hover: if v.drag.is_some() { None } else { v.hover },
            hover_x_px: v.pointer.map(|p| p.0),
            drag_zoom_px: match v.drag {
                Some(Drag::Zoom { press, x1_px }) if press.moved => Some((press.x0_px, x1_px)),
                _ => None,
            },
            box_drag_px: match v.drag {
                Some(Drag::Boxing { x0_px, y0_px, x1_px, y1_px }) => Some((x0_px, y0_px, x1_px, y1_px)),
                _ => None,
            },
            box_selection: None,
            colour_by: self.marks.colour_by.get(),
            search: None,
            markers: &[],
            active_marker: None,
            track_offset: &[],
            counter_offset: &[],
            iterations: &data.trace.iterations,
        };
        let search = self.marks.search.borrow();
        let boxed = self.marks.box_selection.borrow();
        // a marker being dragged is drawn where the pointer has it, not where the state has it
        let stored = self.marks.markers.borrow();
        let (markers, active_marker): (std::borrow::Cow<[Marker]>, _) = match v.drag {
            Some(Drag::Marker { id, t_ns, .. }) => (
                stored
                    .iter()
                    .map(|m| if m.id == id { Marker { t_ns, ..m.clone() } } else { m.clone() })
                    .collect::<Vec<_>>()
                    .into(),
                Some(id),
            ),
            _ => (stored.as_slice().into(), None),
        };
        let clock = self.model.clock.borrow();
        let frame = Frame {
            search: search.as_deref(),
            box_selection: boxed.as_ref(),
            markers: &markers,
            active_marker,
            track_offset: &clock.track_ns,
            counter_offset: &clock.counter_ns,
            iterations: clock.iterations.as_deref().unwrap_or(&data.trace.iterations),
            ..frame
        };
        let mut raster = self.surface.raster.borrow_mut();
        let stats = painter::paint(
            &self.surface.ctx,
            &frame,
            &mut self.painted.hits.borrow_mut(),
            &mut self.painted.items.borrow_mut(),
            raster.as_mut(),
        );
        let rastered = raster.is_some();
        drop(raster);
        if let Some(bus) = &self.out.bus {
            bus.publish(v.vp.scale.start_ns, v.vp.scale.end_ns(v.vp.width_px));
        }
        let _ = self
            .surface
            .list_inner
            .style()
            .set_property("transform", &format!("translateY({}px)", -v.vp.scroll_y_px));
        let ms = now_ms() - t0;
        let o = &self.hooks.exposed;
        set_prop(o, "paintMs", ms.into());
        set_prop(o, "frames", (self.scheduler.frames.get() as f64 + 1.0).into());
        set_prop(o, "items", (stats.items as f64).into());
        set_prop(o, "rows", (stats.rows as f64).into());
        set_prop(o, "edgesDrawn", (stats.edges as f64).into());
        set_prop(o, "startNs", (v.vp.scale.start_ns as f64).into());
        // exact, as text (trace times above 2^53 ns do not fit a JavaScript number)
        set_prop(o, "startNsText", v.vp.scale.start_ns.to_string().into());
        set_prop(o, "nsPerPx", v.vp.scale.ns_per_px.into());
        set_prop(o, "scrollY", v.vp.scroll_y_px.into());
        set_prop(o, "widthPx", v.vp.width_px.into());
        set_prop(o, "heightPx", v.vp.height_px.into());
        set_prop(o, "dpr", v.dpr.into());
        set_prop(o, "sliceCount", (data.trace.slice_count() as f64).into());
        set_prop(o, "memoryBytes", (data.heap_bytes as f64).into());
        // threads the last load's parser worker used (loader::last_threads)
        set_prop(o, "threads", f64::from(crate::loader::last_threads()).into());
        set_prop(o, "raster", rastered.into());
        set_prop(o, "trackCount", (data.trace.tracks.len() as f64).into());
        set_prop(o, "counterCount", (data.trace.counters.len() as f64).into());
        set_prop(o, "format", data.trace.format.as_str().into());
        set_prop(o, "demo", data.is_demo.into());
        set_prop(o, "loadMs", data.load_ms.into());
        set_prop(o, "fromCache", data.from_cache.into());
        // the model's resident bytes as the core counts them; lazy argument sets (issue 10)
        set_prop(o, "memoryBytes", (data.trace.heap_bytes() as f64).into());
        set_prop(o, "lazyArgs", (data.trace.args.lazy.len() as f64).into());
        set_prop(o, "endNs", (v.vp.scale.end_ns(v.vp.width_px) as f64).into());
        // markers as drawn: id, name, time and canvas x (test hook)
        let arr = js_sys::Array::new();
        for m in markers.iter() {
            let e = js_sys::Object::new();
            set_prop(&e, "id", m.id.into());
            set_prop(&e, "name", m.name.as_str().into());
            set_prop(&e, "tNs", (m.t_ns as f64).into());
            set_prop(&e, "x", v.vp.scale.x_from_time(m.t_ns).into());
            arr.push(&e);
        }
        set_prop(o, "markers", arr.into());
    }
}
