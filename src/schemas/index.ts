export {
  FreeObject,
  NullableInt,
  NullableTimestamp,
  OrderCycle,
  RequestTypeEnum,
  StatusEnum,
  Timestamp,
  Uuid,
} from './primitives.ts';
