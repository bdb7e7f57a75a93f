class Circle:
    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return 3.14159 * self.radius * self.radius


def describe_shape(shape: Circle) -> str:
    return f"area {shape.area():.1f}"
