export interface Box<T> { readonly value: T; map<U>(f: (value: T) => U): Box<U> }
export function box<T>(value: T): Box<T> { return { value, map: (f) => box(f(value)) } }

export function step0(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 2).map((value) => value + 0)
  const checked: number = doubled.value
  return box(checked)
}

export function step1(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 3).map((value) => value + 1)
  const checked: number = doubled.value
  return box(checked)
}

export function step2(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 4).map((value) => value + 2)
  const checked: number = doubled.value
  return box(checked)
}

export function step3(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 5).map((value) => value + 3)
  const checked: number = doubled.value
  return box(checked)
}

export function step4(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 6).map((value) => value + 4)
  const checked: number = doubled.value
  return box(checked)
}

export function step5(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 7).map((value) => value + 5)
  const checked: number = doubled.value
  return box(checked)
}

export function step6(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 8).map((value) => value + 6)
  const checked: number = doubled.value
  return box(checked)
}

export function step7(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 9).map((value) => value + 7)
  const checked: number = doubled.value
  return box(checked)
}

export function step8(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 10).map((value) => value + 8)
  const checked: number = doubled.value
  return box(checked)
}

export function step9(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 11).map((value) => value + 9)
  const checked: number = doubled.value
  return box(checked)
}

export function step10(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 12).map((value) => value + 10)
  const checked: number = doubled.value
  return box(checked)
}

export function step11(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 13).map((value) => value + 11)
  const checked: number = doubled.value
  return box(checked)
}

export function step12(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 14).map((value) => value + 12)
  const checked: number = doubled.value
  return box(checked)
}

export function step13(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 15).map((value) => value + 13)
  const checked: number = doubled.value
  return box(checked)
}

export function step14(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 16).map((value) => value + 14)
  const checked: number = doubled.value
  return box(checked)
}

export function step15(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 17).map((value) => value + 15)
  const checked: number = doubled.value
  return box(checked)
}

export function step16(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 18).map((value) => value + 16)
  const checked: number = doubled.value
  return box(checked)
}

export function step17(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 19).map((value) => value + 17)
  const checked: number = doubled.value
  return box(checked)
}

export function step18(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 20).map((value) => value + 18)
  const checked: number = doubled.value
  return box(checked)
}

export function step19(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 21).map((value) => value + 19)
  const checked: number = doubled.value
  return box(checked)
}

export function step20(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 22).map((value) => value + 20)
  const checked: number = doubled.value
  return box(checked)
}

export function step21(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 23).map((value) => value + 21)
  const checked: number = doubled.value
  return box(checked)
}

export function step22(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 24).map((value) => value + 22)
  const checked: number = doubled.value
  return box(checked)
}

export function step23(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 25).map((value) => value + 23)
  const checked: number = doubled.value
  return box(checked)
}

export function step24(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 26).map((value) => value + 24)
  const checked: number = doubled.value
  return box(checked)
}

export function step25(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 27).map((value) => value + 25)
  const checked: number = doubled.value
  return box(checked)
}

export function step26(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 28).map((value) => value + 26)
  const checked: number = doubled.value
  return box(checked)
}

export function step27(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 29).map((value) => value + 27)
  const checked: number = doubled.value
  return box(checked)
}

export function step28(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 30).map((value) => value + 28)
  const checked: number = doubled.value
  return box(checked)
}

export function step29(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 31).map((value) => value + 29)
  const checked: number = doubled.value
  return box(checked)
}

export function step30(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 32).map((value) => value + 30)
  const checked: number = doubled.value
  return box(checked)
}

export function step31(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 33).map((value) => value + 31)
  const checked: number = doubled.value
  return box(checked)
}

export function step32(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 34).map((value) => value + 32)
  const checked: number = doubled.value
  return box(checked)
}

export function step33(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 35).map((value) => value + 33)
  const checked: number = doubled.value
  return box(checked)
}

export function step34(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 36).map((value) => value + 34)
  const checked: number = doubled.value
  return box(checked)
}

export function step35(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 37).map((value) => value + 35)
  const checked: number = doubled.value
  return box(checked)
}

export function step36(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 38).map((value) => value + 36)
  const checked: number = doubled.value
  return box(checked)
}

export function step37(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 39).map((value) => value + 37)
  const checked: number = doubled.value
  return box(checked)
}

export function step38(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 40).map((value) => value + 38)
  const checked: number = doubled.value
  return box(checked)
}

export function step39(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 41).map((value) => value + 39)
  const checked: number = doubled.value
  return box(checked)
}

export function step40(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 42).map((value) => value + 40)
  const checked: number = doubled.value
  return box(checked)
}

export function step41(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 43).map((value) => value + 41)
  const checked: number = doubled.value
  return box(checked)
}

export function step42(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 44).map((value) => value + 42)
  const checked: number = doubled.value
  return box(checked)
}

export function step43(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 45).map((value) => value + 43)
  const checked: number = doubled.value
  return box(checked)
}

export function step44(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 46).map((value) => value + 44)
  const checked: number = doubled.value
  return box(checked)
}

export function step45(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 47).map((value) => value + 45)
  const checked: number = doubled.value
  return box(checked)
}

export function step46(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 48).map((value) => value + 46)
  const checked: number = doubled.value
  return box(checked)
}

export function step47(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 49).map((value) => value + 47)
  const checked: number = doubled.value
  return box(checked)
}

export function step48(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 50).map((value) => value + 48)
  const checked: number = doubled.value
  return box(checked)
}

export function step49(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 51).map((value) => value + 49)
  const checked: number = doubled.value
  return box(checked)
}

export function step50(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 52).map((value) => value + 50)
  const checked: number = doubled.value
  return box(checked)
}

export function step51(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 53).map((value) => value + 51)
  const checked: number = doubled.value
  return box(checked)
}

export function step52(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 54).map((value) => value + 52)
  const checked: number = doubled.value
  return box(checked)
}

export function step53(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 55).map((value) => value + 53)
  const checked: number = doubled.value
  return box(checked)
}

export function step54(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 56).map((value) => value + 54)
  const checked: number = doubled.value
  return box(checked)
}

export function step55(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 57).map((value) => value + 55)
  const checked: number = doubled.value
  return box(checked)
}

export function step56(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 58).map((value) => value + 56)
  const checked: number = doubled.value
  return box(checked)
}

export function step57(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 59).map((value) => value + 57)
  const checked: number = doubled.value
  return box(checked)
}

export function step58(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 60).map((value) => value + 58)
  const checked: number = doubled.value
  return box(checked)
}

export function step59(input: Box<number>): Box<number> {
  const doubled = input.map((value) => value * 61).map((value) => value + 59)
  const checked: number = doubled.value
  return box(checked)
}

