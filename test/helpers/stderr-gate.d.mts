export declare const GATE_VARIABLE: 'GEXWH_TEST_STDERR_GATE';
