# Theorem 1 (printed, Eq. 17, derived) and the naive-ensemble rate vs m, and the printed bound's terms.
# Usage: gnuplot -e "csv='results/bounds_theorem1_terms.csv'; png='results/bounds_theorem1_terms.png'" plots/bounds_theorem1_terms.gp
# CSV columns: form,m,T,k,N,d_N,C,rademacher,delta,rademacher_term,log_growth_routing,log_growth_sample,
#              log_confidence,denominator,deviation_term,total
if (!exists("csv")) csv = 'results/bounds_theorem1_terms.csv'
if (!exists("png")) png = 'results/bounds_theorem1_terms.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,600 enhanced font ",11"
} else {
  set terminal png size 1400,600
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "Theorem 1 of the compositional paper vs m (T = 64, k = 4, N = 4, d_N = 2, delta = 0.05, R_m(H) = 1/sqrt(m))"
set grid
set logscale xy
set format x "10^{%L}"
set xlabel "training points m"
set ylabel "bound on the generalization gap"
set key bottom left
forms = "printed eq17 derived ensemble_printed ensemble_averaged"
names = "'Thm 1 as printed (Eq. 5)' 'Eq. 17 (exact log C(T,k))' 'derived (findings 1-4)' 'naive ensemble, printed (T R)' 'averaged ensemble (Lemma 10)'"
set title "totals"
# Each m has five rows, one per form in the order of `forms`: `every 5::(i - 1)` picks one form.
plot for [i = 1:5] csv every 5::(i - 1) using 2:16 with lines lw 2 title word(names, i)
set title "terms: Rademacher term vs deviation (Natarajan + confidence) term"
plot csv every 5::0 using 2:10 with lines lw 2 title "printed: 4 C R_m(H)", \
     csv every 5::0 using 2:15 with lines lw 2 title "printed: deviation term", \
     csv every 5::2 using 2:10 with lines lw 2 dt 2 title "derived: 4 C T w_{max} R_m(H)", \
     csv every 5::2 using 2:15 with lines lw 2 dt 2 title "derived: deviation term"
unset multiplot
