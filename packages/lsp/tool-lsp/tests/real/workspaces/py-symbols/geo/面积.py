def 面积(宽: float, 高: float) -> float:
    return 宽 * 高


标签 = "📐 面积"; 总面积 = 面积(2, 3) + 面积(4, 5)
