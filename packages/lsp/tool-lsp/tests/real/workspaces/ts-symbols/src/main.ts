import { areaSum, Rect, Square, widest } from './geometry'
import { 面积, 总面积 } from './面积'

const rect = new Rect(2, 3)
const square = new Square(4)
const width = rect.width
const banner = '🚀🚀 shapes'; const total = areaSum([rect, square])
const shapes = [rect, square]; const area = rect.area() + square.area()
const sum = areaSum(shapes) + rect.area()

export const report = {
  banner,
  total,
  area,
  sum,
  width,
  best: widest(shapes),
  cjk: 面积(1, 2) + 总面积,
}
