import math


class Circle:
    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return math.pi * self.radius**2

    @property
    def diameter(self) -> float:
        return self.radius * 2


banner = "🎉🎉"; counter = 0  # noqa: E702


def describe_shape(shape: Circle) -> str:
    return f"area {shape.area()}"
