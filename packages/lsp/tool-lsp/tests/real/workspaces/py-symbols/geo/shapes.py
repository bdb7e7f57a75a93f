class Shape:
    def area(self) -> float:
        raise NotImplementedError


class Rect(Shape):
    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height


class Square(Rect):
    def __init__(self, side: float) -> None:
        super().__init__(side, side)


def area_sum(shapes: list[Shape]) -> float:
    """Sums the area of every shape."""
    return sum(shape.area() for shape in shapes)


def widest(rects: list[Rect]) -> Rect | None:
    best = None
    for rect in rects:
        if best is None or rect.width > best.width:
            best = rect
    return best
