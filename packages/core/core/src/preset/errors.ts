import { HarnessError } from '../errors.ts'

export const PresetErrorCode = {
  PRESET_NOT_FOUND: 'PRESET_NOT_FOUND',
  PRESET_INVALID: 'PRESET_INVALID',
  PRESET_PLUGIN_NOT_FOUND: 'PRESET_PLUGIN_NOT_FOUND',
  PRESET_PLUGIN_INVALID: 'PRESET_PLUGIN_INVALID',
  PRESET_CONFIG_INVALID: 'PRESET_CONFIG_INVALID',
  PRESET_PLUGIN_FAILED: 'PRESET_PLUGIN_FAILED',
  PRESET_PLUGIN_UNSATISFIED: 'PRESET_PLUGIN_UNSATISFIED',
} as const
export type PresetErrorCode = (typeof PresetErrorCode)[keyof typeof PresetErrorCode]

export class PresetError extends HarnessError<PresetErrorCode> {}
