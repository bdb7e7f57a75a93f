export function 面积(宽: number, 高: number): number {
  return 宽 * 高
}

export const 标签 = '📐 面积'; export const 总面积 = 面积(2, 3) + 面积(4, 5)
