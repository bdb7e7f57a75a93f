export interface Shape {
  area(): number
}

export class Rect implements Shape {
  constructor(readonly width: number, readonly height: number) {}

  area(): number {
    return this.width * this.height
  }
}

export class Square extends Rect {
  constructor(side: number) {
    super(side, side)
  }
}

/** Sums the area of every shape. */
export function areaSum(shapes: readonly Shape[]): number {
  return shapes.reduce((total, shape) => total + shape.area(), 0)
}

export function widest(rects: readonly Rect[]): Rect | undefined {
  let best: Rect | undefined
  for (const rect of rects) if (!best || rect.width > best.width) best = rect
  return best
}
