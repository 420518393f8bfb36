//! The app's only `requestAnimationFrame` owner. Anything that changes what a canvas shows calls
//! [`Scheduler::request_redraw`]; any number of requests within a frame coalesce into one
//! callback, which first runs queued actions (state changes such as animated pans) and then every
//! registered redraw, in registration order.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

type Redraw = Rc<dyn Fn()>;

#[derive(Default)]
pub struct Scheduler {
    pending: Cell<bool>,
    redraws: RefCell<Vec<(u32, Redraw)>>,
    /// Run after every `redraws` callback of the frame (readers of what the timeline painted).
    late: RefCell<Vec<(u32, Redraw)>>,
    actions: RefCell<Vec<Box<dyn FnOnce()>>>,
    next_id: Cell<u32>,
    frame_cb: RefCell<Option<Closure<dyn FnMut(f64)>>>,
    /// Frames painted so far (for tests and benchmarks).
    pub frames: Cell<u64>,
}

impl Scheduler {
    pub fn new() -> Rc<Scheduler> {
        let s = Rc::new(Scheduler::default());
        let weak: Weak<Scheduler> = Rc::downgrade(&s);
        *s.frame_cb.borrow_mut() = Some(Closure::new(move |_t: f64| {
            if let Some(s) = weak.upgrade() {
                s.run_frame();
            }
        }));
        s
    }

    /// Register a redraw callback; returns an id for [`Scheduler::unregister`].
    pub fn register(&self, redraw: Rc<dyn Fn()>) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.redraws.borrow_mut().push((id, redraw));
        id
    }

    /// Register a callback that runs after every [`Scheduler::register`]ed one in each frame
    /// (e.g. widgets that follow the viewport the timeline just painted).
    pub fn register_late(&self, redraw: Rc<dyn Fn()>) -> u32 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.late.borrow_mut().push((id, redraw));
        id
    }

    pub fn unregister(&self, id: u32) {
        self.redraws.borrow_mut().retain(|(i, _)| *i != id);
        self.late.borrow_mut().retain(|(i, _)| *i != id);
    }

    /// Queue a state change to run at the start of the next frame, then redraw.
    pub fn request_action(&self, action: impl FnOnce() + 'static) {
        self.actions.borrow_mut().push(Box::new(action));
        self.request_redraw();
    }

    /// Ask for a repaint on the next animation frame (coalesced).
    pub fn request_redraw(&self) {
        if self.pending.replace(true) {
            return;
        }
        let cb = self.frame_cb.borrow();
        let requested = match (web_sys::window(), cb.as_ref()) {
            (Some(w), Some(cb)) => w.request_animation_frame(cb.as_ref().unchecked_ref()).is_ok(),
            _ => false,
        };
        if !requested {
            self.pending.set(false);
        }
    }

    /// Run queued actions and all redraws now (also used by tests to paint synchronously).
    pub fn run_frame(&self) {
        self.pending.set(false);
        let actions = std::mem::take(&mut *self.actions.borrow_mut());
        for a in actions {
            a();
        }
        let redraws: Vec<Redraw> =
            self.redraws.borrow().iter().chain(self.late.borrow().iter()).map(|(_, r)| r.clone()).collect();
        for r in redraws {
            r();
        }
        self.frames.set(self.frames.get() + 1);
    }
}
