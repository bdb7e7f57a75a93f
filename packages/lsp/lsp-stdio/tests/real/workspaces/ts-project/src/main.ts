import { Circle, describe } from './shapes'
import { legacyFormat } from './legacy'

const circle = new Circle(2)
const label = '😀😀 wide'; const text = describe(circle)
console.log(label, text, legacyFormat(3))
