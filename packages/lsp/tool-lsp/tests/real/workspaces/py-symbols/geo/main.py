from geo.shapes import Rect, Square, area_sum, widest
from geo.面积 import 面积, 总面积

rect = Rect(2.0, 3.0)
square = Square(4.0)
width = rect.width
banner = "🚀🚀 shapes"; total = area_sum([rect, square])
shapes = [rect, square]; area = rect.area() + square.area()
summed = area_sum(shapes) + rect.area()

report = {
    "banner": banner,
    "total": total,
    "area": area,
    "summed": summed,
    "width": width,
    "best": widest(shapes),
    "cjk": 面积(1, 2) + 总面积,
}
