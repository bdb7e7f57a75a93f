import { Circle, describeShape } from './shapes'
import { report, summary } from './report'

const circle = new Circle(2)
export const text: string = describeShape(circle)
export const lines: string[] = report([circle])
export const all: string = summary([circle, new Circle(1)])
