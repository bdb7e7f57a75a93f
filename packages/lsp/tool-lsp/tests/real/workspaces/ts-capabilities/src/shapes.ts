export interface Shape {
  area(): number
}

export class Circle implements Shape {
  constructor(private readonly radius: number) {}

  area(): number {
    return Math.PI * this.radius ** 2
  }

  get diameter(): number {
    return this.radius * 2
  }
}

export const banner = '🎉🎉'; export function describeShape(shape: Shape): string { return `area ${shape.area()}` }
