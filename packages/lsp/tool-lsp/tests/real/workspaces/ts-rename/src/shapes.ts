export interface Shape {
  area(): number
}

export class Circle implements Shape {
  constructor(private readonly radius: number) {}
  area(): number {
    return Math.PI * this.radius * this.radius
  }
}

export function describeShape(shape: Shape): string {
  return `area ${shape.area().toFixed(1)}`
}

export const unit = 'cm'
