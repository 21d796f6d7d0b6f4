//! Slice assignment of the three aligned windows: which slice a row falls
//! into, which windows a slice belongs to, which slices a firing window
//! merges and which it expires.
//!
//! Follows `SliceAssigners` (`flink-table-runtime/.../operators/window/tvf/
//! slicing/SliceAssigners.java`: `TumblingSliceAssigner`,
//! `HoppingSliceAssigner`, `CumulativeSliceAssigner`) and
//! `TimeWindowUtil.isWindowFired` / `TimeWindow.getWindowStartWithOffset`,
//! for a `TIMESTAMP(3)` rowtime (UTC: no time-zone shift). Arithmetic wraps
//! like Java `long`.
//!
//! | window | slice size | windows of a slice | firing window `end` merges | then expires |
//! | --- | --- | --- | --- | --- |
//! | TUMBLE(size) | size | the one ending at the slice end | its slice | its slice |
//! | HOP(size, slide) | slide (size is a multiple of slide) | ends from the slice end to slice end − slide + size | the `size / slide` slices ending at `end`, `end` − slide, … (newest first) | its oldest slice |
//! | CUMULATE(max, step) | step (max is a multiple of step) | ends from the slice end to the window start + max | slice `end` into the first slice of the window (kept as the running total) | slice `end`; at the last step also the first slice |

use crate::error::{invalid_arg, Result};

/// Which aligned window, with its sizes in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowKind {
    /// `TUMBLE(size)`.
    Tumble {
        /// Window size.
        size: i64,
    },
    /// `HOP(slide, size)`.
    Hop {
        /// Window size (a multiple of `slide`).
        size: i64,
        /// Slide between window starts.
        slide: i64,
    },
    /// `CUMULATE(step, max_size)`.
    Cumulate {
        /// Largest window size (a multiple of `step`).
        max_size: i64,
        /// Step between window ends.
        step: i64,
    },
}

/// A window TVF: its kind and its offset (`TUMBLE(..., offset)`), in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WindowSpec {
    /// The window.
    pub kind: WindowKind,
    /// Window offset (shifts every window boundary). Default 0.
    pub offset: i64,
    /// A window attached by an upstream window TVF
    /// (`WindowAttachedWindowingStrategy`): the rowtime column holds each
    /// row's `window_end`, so a row belongs to exactly that window, which is
    /// its only slice (`SliceAssigners.WindowedSliceAssigner`); `kind` still
    /// gives `window_start` from the end. Default false.
    pub attached: bool,
}

impl WindowSpec {
    /// `TUMBLE(size)`.
    pub fn tumble(size: i64) -> Self {
        WindowSpec { kind: WindowKind::Tumble { size }, offset: 0, attached: false }
    }
    /// `HOP(slide, size)`.
    pub fn hop(size: i64, slide: i64) -> Self {
        WindowSpec { kind: WindowKind::Hop { size, slide }, offset: 0, attached: false }
    }
    /// `CUMULATE(step, max_size)`.
    pub fn cumulate(max_size: i64, step: i64) -> Self {
        WindowSpec { kind: WindowKind::Cumulate { max_size, step }, offset: 0, attached: false }
    }
    /// With a window offset.
    pub fn with_offset(mut self, offset: i64) -> Self {
        self.offset = offset;
        self
    }
    /// The same window attached by an upstream window TVF: rows carry their
    /// `window_end` in the rowtime column (see [`WindowSpec::attached`]).
    pub fn attached(mut self) -> Self {
        self.attached = true;
        self
    }

    /// Whether a window is one slice, fired and expired alone: TUMBLE and
    /// every attached window.
    #[inline]
    pub(crate) fn is_single_slice(&self) -> bool {
        self.attached || matches!(self.kind, WindowKind::Tumble { .. })
    }

    /// Checks the sizes as the assigners' constructors do (same conditions,
    /// same wording).
    ///
    /// # Errors
    /// A size or slide/step that is not positive, a size that is not a
    /// multiple of the slide/step, a tumbling offset not below the size.
    pub(crate) fn validate(&self) -> Result<()> {
        match self.kind {
            WindowKind::Tumble { size } => {
                if size <= 0 {
                    return Err(invalid_arg(format!(
                        "Tumbling Window parameters must satisfy size > 0, but got size {size}ms."
                    )));
                }
                if self.offset.unsigned_abs() >= size as u64 {
                    return Err(invalid_arg(format!(
                        "Tumbling Window parameters must satisfy abs(offset) < size, but got size {size}ms and offset {}ms.",
                        self.offset
                    )));
                }
            }
            WindowKind::Hop { size, slide } => {
                if size <= 0 || slide <= 0 {
                    return Err(invalid_arg(format!(
                        "Hopping Window must satisfy slide > 0 and size > 0, but got slide {slide}ms and size {size}ms."
                    )));
                }
                if size % slide != 0 {
                    return Err(invalid_arg(format!(
                        "Slicing Hopping Window requires size must be an integral multiple of slide, but got size {size}ms and slide {slide}ms."
                    )));
                }
            }
            WindowKind::Cumulate { max_size, step } => {
                if max_size <= 0 || step <= 0 {
                    return Err(invalid_arg(format!(
                        "Cumulative Window parameters must satisfy maxSize > 0 and step > 0, but got maxSize {max_size}ms and step {step}ms."
                    )));
                }
                if max_size % step != 0 {
                    return Err(invalid_arg(format!(
                        "Cumulative Window requires maxSize must be an integral multiple of step, but got maxSize {max_size}ms and step {step}ms."
                    )));
                }
            }
        }
        Ok(())
    }

    /// The slice size (`getSliceEndInterval`): also the distance between
    /// consecutive window ends.
    pub(crate) fn interval(&self) -> i64 {
        match self.kind {
            WindowKind::Tumble { size } => size,
            // gcd(size, slide) is the slide, as size is a multiple of it.
            WindowKind::Hop { slide, .. } => slide,
            WindowKind::Cumulate { step, .. } => step,
        }
    }

    /// The end of the slice holding `ts` (`assignSliceEnd`).
    #[inline]
    pub(crate) fn slice_end(&self, ts: i64) -> i64 {
        if self.attached {
            return ts;
        }
        let i = self.interval();
        window_start_with_offset(ts, self.offset, i).wrapping_add(i)
    }

    /// The end of the last window holding slice `slice_end` (`getLastWindowEnd`).
    #[inline]
    pub(crate) fn last_window_end(&self, slice_end: i64) -> i64 {
        if self.attached {
            return slice_end;
        }
        match self.kind {
            WindowKind::Tumble { .. } => slice_end,
            WindowKind::Hop { size, slide } => slice_end.wrapping_sub(slide).wrapping_add(size),
            WindowKind::Cumulate { max_size, .. } => self.window_start(slice_end).wrapping_add(max_size),
        }
    }

    /// The start of the window ending at `end` (`getWindowStart`).
    #[inline]
    pub(crate) fn window_start(&self, end: i64) -> i64 {
        match self.kind {
            WindowKind::Tumble { size } | WindowKind::Hop { size, .. } => end.wrapping_sub(size),
            WindowKind::Cumulate { max_size, .. } => {
                window_start_with_offset(end.wrapping_sub(1), self.offset, max_size)
            }
        }
    }

    /// CUMULATE: the first slice of the window ending at `end`, which holds
    /// the window's running total (`getFirstSliceEnd`).
    #[inline]
    pub(crate) fn first_slice_end(&self, end: i64) -> i64 {
        self.window_start(end).wrapping_add(self.interval())
    }

    /// The slice state a row of the already fired slice `slice_end` goes to
    /// (`sliceStateMergeTarget`): CUMULATE folds it into the window's first
    /// slice (the running total), the others into the slice itself.
    #[inline]
    pub(crate) fn merge_target(&self, slice_end: i64) -> i64 {
        match self.kind {
            WindowKind::Cumulate { .. } if !self.attached => self.first_slice_end(slice_end),
            _ => slice_end,
        }
    }

    /// The window after the one ending at `end` that the same key must fire
    /// (`nextTriggerWindow`), given whether the fired window was empty.
    pub(crate) fn next_trigger(&self, end: i64, empty: bool) -> Option<i64> {
        if self.attached {
            return None;
        }
        match self.kind {
            WindowKind::Tumble { .. } => None,
            WindowKind::Hop { slide, .. } => (!empty).then(|| end.wrapping_add(slide)),
            WindowKind::Cumulate { max_size, step } => {
                let next = end.wrapping_add(step);
                (next <= self.window_start(end).wrapping_add(max_size)).then_some(next)
            }
        }
    }

    /// HOP: the number of slices in a window.
    pub(crate) fn slices_per_window(&self) -> i64 {
        match self.kind {
            WindowKind::Hop { size, slide } if !self.attached => size / slide,
            _ => 1,
        }
    }

    /// The slices to clear once the window ending at `end` fired
    /// (`expiredSlices`); at most two.
    pub(crate) fn expired(&self, end: i64) -> [Option<i64>; 2] {
        if self.attached {
            return [Some(end), None];
        }
        match self.kind {
            WindowKind::Tumble { .. } => [Some(end), None],
            WindowKind::Hop { slide, .. } => [Some(self.window_start(end).wrapping_add(slide)), None],
            WindowKind::Cumulate { max_size, .. } => {
                // Flink checks "first slice" before "last slice", so with
                // max_size == step it never clears the one slice (state
                // nothing reads again: its rows are all late). Checking
                // "last" first frees it; the output is the same.
                let first = self.first_slice_end(end);
                if end == self.window_start(end).wrapping_add(max_size) {
                    [Some(end), (first != end).then_some(first)]
                } else if end == first {
                    [None, None]
                } else {
                    [Some(end), None]
                }
            }
        }
    }
}

/// `TimeWindow.getWindowStartWithOffset`.
#[inline]
pub(crate) fn window_start_with_offset(ts: i64, offset: i64, size: i64) -> i64 {
    let rem = ts.wrapping_sub(offset).wrapping_rem(size);
    if rem < 0 {
        ts.wrapping_sub(rem.wrapping_add(size))
    } else {
        ts.wrapping_sub(rem)
    }
}

/// `TimeWindowUtil.isWindowFired` (UTC): the window ending at `end` has
/// fired once the watermark reached `end - 1`; `i64::MAX` never fires.
#[inline]
pub(crate) fn is_fired(end: i64, watermark: i64) -> bool {
    end != i64::MAX && watermark >= end.wrapping_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_and_windows_as_flink_assigns_them() {
        let t = WindowSpec::tumble(3000);
        assert_eq!((t.slice_end(2999), t.slice_end(3000), t.slice_end(-1)), (3000, 6000, 0));
        let h = WindowSpec::hop(3000, 1000);
        assert_eq!((h.slice_end(20), h.last_window_end(1000), h.window_start(1000)), (1000, 3000, -2000));
        assert_eq!(h.expired(3000), [Some(1000), None]);
        let c = WindowSpec::cumulate(3000, 1000);
        assert_eq!((c.window_start(2000), c.first_slice_end(2000), c.last_window_end(4000)), (0, 1000, 6000));
        assert_eq!(
            (c.expired(1000), c.expired(2000), c.expired(3000)),
            ([None, None], [Some(2000), None], [Some(3000), Some(1000)])
        );
        assert_eq!((c.next_trigger(2000, false), c.next_trigger(3000, false)), (Some(3000), None));
        assert_eq!(WindowSpec::tumble(10).with_offset(3).slice_end(2), 3);
        assert!(is_fired(1000, 999) && !is_fired(1000, 998) && !is_fired(i64::MAX, i64::MAX));
        // Attached: the rowtime is the window end; the window is its one slice.
        let a = WindowSpec::hop(3000, 1000).attached();
        assert_eq!((a.slice_end(4000), a.last_window_end(4000), a.window_start(4000)), (4000, 4000, 1000));
        assert_eq!(
            (a.expired(4000), a.next_trigger(4000, false), a.slices_per_window()),
            ([Some(4000), None], None, 1)
        );
        assert!(a.is_single_slice() && !h.is_single_slice());
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(WindowSpec::tumble(0).validate().is_err());
        assert!(WindowSpec::tumble(10).with_offset(10).validate().is_err());
        assert!(WindowSpec::hop(10, 3).validate().unwrap_err().to_string().contains("integral multiple"));
        assert!(WindowSpec::cumulate(10, 0).validate().is_err());
    }
}
