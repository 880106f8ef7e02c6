import { Annotation } from '@langchain/langgraph';

/** A state field a node's update replaces (the last value written wins), `initial()` until then. */
export const last = <T>(initial: () => T) => Annotation<T>({ reducer: (_, b) => b, default: initial });
