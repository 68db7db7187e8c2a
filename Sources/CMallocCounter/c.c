int mc_dummy(void){return 0;}
