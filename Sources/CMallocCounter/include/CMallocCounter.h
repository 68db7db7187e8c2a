int mc_dummy(void);
