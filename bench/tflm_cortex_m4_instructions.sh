# TFLM's instructions per Invoke on the Cortex-M4F (QEMU mps2-an386,
# -icount shift=0, the firmware setup of examples/cortex_m, -O2), with its
# reference kernels and with Arm's CMSIS-NN kernels, rounded to 0.1 M as
# measured when the speed targets were set. Neither build is in ../shared,
# so the figures live here, sourced by scripts/cortex_m.sh (which holds the
# fast kernels to them) and bench/cortex_m_invoke.sh.
# shellcheck shell=bash disable=SC2034
declare -A tflm_reference_instructions=([kws_ref_model]=43100000 [vww_96_int8]=100500000
  [pretrainedResnet_quant]=107500000 [ad01_int8]=1950000)
declare -A cmsis_instructions=([kws_ref_model]=7700000 [vww_96_int8]=24100000 [pretrainedResnet_quant]=29900000
  [ad01_int8]=580000)
