import type { SlideFrame } from '../../providers/port.js';

/** A rectangle in output pixels. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export type Frame = '9:16' | '4:5';

/** The output size of each frame: at most 1080 px on the short side. */
export const FRAME_SIZES: Readonly<Record<Frame, { width: number; height: number }>> = Object.freeze({
  '9:16': { width: 1080, height: 1920 },
  '4:5': { width: 1080, height: 1350 },
});

/**
 * Where text may go on each frame (docs/decisions.md, "Caption rendering"). 9:16: clear of the top
 * bar (250 px), the right-hand buttons (170 px), the caption and username area (420 px) and a 90 px
 * left margin. 4:5 is shown in a 9:16 screen with about 285 px above and below it, so less of it
 * is covered: 60 px at the top, 160 px at the bottom, the same sides.
 */
export const SAFE_ZONES: Readonly<Record<Frame, Box>> = Object.freeze({
  '9:16': { left: 90, top: 250, width: 820, height: 1250 },
  '4:5': { left: 90, top: 60, width: 820, height: 1130 },
});

/** Where the hook's centre goes: about 30% down the frame, where viewers look first. */
export const HOOK_CENTRE_SHARE = 0.3;

/** The frame a source is drawn in when no network is named: 9:16 or 4:5 by its shape (`frameFor`). */
export function sourceFrame(frame: Frame): SlideFrame {
  const size = FRAME_SIZES[frame];
  const zone = SAFE_ZONES[frame];
  return {
    ...size,
    safeArea: {
      top: zone.top,
      right: size.width - zone.left - zone.width,
      bottom: size.height - zone.top - zone.height,
      left: zone.left,
    },
  };
}

/** Where text may go in a frame: the frame less its safe area's insets. */
export function zoneOf(frame: SlideFrame): Box {
  const { top, right, bottom, left } = frame.safeArea;
  return { left, top, width: frame.width - left - right, height: frame.height - top - bottom };
}

/** Whether two frames are drawn the same (a caption laid out for one fits the other). */
export function sameFrame(a: SlideFrame, b: SlideFrame): boolean {
  const [x, y] = [zoneOf(a), zoneOf(b)];
  return (
    a.width === b.width &&
    a.height === b.height &&
    x.left === y.left &&
    x.top === y.top &&
    x.width === y.width &&
    x.height === y.height
  );
}
