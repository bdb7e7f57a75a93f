import { describeShape, type Shape } from './shapes'

export function report(shapes: Shape[]): string[] {
  return shapes.map((shape) => '🎉 ' + describeShape(shape))
}

export function summary(shapes: Shape[]): string {
  return report(shapes).join('\n')
}
