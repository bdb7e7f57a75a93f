import { Circle, describeShape } from './shapes'

export const circle = new Circle(2)
export const label = '🎉🎉'; export const text: string = describeShape(circle)
